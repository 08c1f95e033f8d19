import { describe, expect, it } from 'vitest';
import { pageDensities } from './page-density.js';

const HOUR = 3_600_000;
const position = (ts: number) => ({ ts, id: 'a' });

describe('pageDensities', () => {
  it('knows nothing of a tenant and filters before a full page of them', () => {
    expect(pageDensities().guess('t', {}, null, 10 * HOUR)).toBeUndefined();
  });

  it('offers the first page its previous density, and the page below a page that one', () => {
    const densities = pageDensities();
    densities.learn('t', {}, null, 100, 9 * HOUR, 10 * HOUR);
    expect(densities.guess('t', {}, null, 10 * HOUR + 5)).toBe(100 / HOUR);
    expect(densities.guess('t', {}, position(9 * HOUR), 9 * HOUR + 1)).toBe(100 / HOUR);
    densities.learn('t', {}, position(9 * HOUR), 100, 8.5 * HOUR, 9 * HOUR);
    expect(densities.guess('t', {}, position(8.5 * HOUR), 8.5 * HOUR + 1)).toBe(200 / HOUR);
    expect(densities.guess('t', {}, null, 10 * HOUR)).toBe(100 / HOUR);
  });

  it('offers nothing to a page far from where the density was measured', () => {
    const densities = pageDensities();
    densities.learn('t', {}, position(9 * HOUR), 100, 8 * HOUR, 9 * HOUR);
    expect(densities.guess('t', {}, position(2 * HOUR), 2 * HOUR + 1)).toBeUndefined();
    expect(densities.guess('t', {}, null, 10 * HOUR)).toBeUndefined();
  });

  it('keeps tenants and filters apart, and forgets the oldest beyond its bound', () => {
    const densities = pageDensities(2);
    densities.learn('t', { action: 'phi.read' }, null, 10, 0, HOUR);
    expect(densities.guess('t', {}, null, HOUR)).toBeUndefined();
    expect(densities.guess('u', { action: 'phi.read' }, null, HOUR)).toBeUndefined();
    expect(densities.guess('t', { action: 'phi.read', since: 5 }, null, HOUR)).toBeUndefined();
    densities.learn('u', {}, null, 10, 0, HOUR);
    densities.learn('v', {}, null, 10, 0, HOUR);
    expect(densities.guess('t', { action: 'phi.read' }, null, HOUR)).toBeUndefined();
    expect(densities.guess('v', {}, null, HOUR)).toBe(10 / HOUR);
  });
});
