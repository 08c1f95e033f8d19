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
    densities.learn('t', {}, null, { count: 100, from: 9 * HOUR, to: 10 * HOUR });
    // The next first page also knows where the last one's full page ended: at 9 h.
    expect(densities.guess('t', {}, null, 10 * HOUR + 5)).toEqual({
      density: 100 / HOUR,
      floor: 9 * HOUR,
      slice: undefined,
    });
    expect(densities.guess('t', {}, position(9 * HOUR), 9 * HOUR + 1)).toEqual({
      density: 100 / HOUR,
      slice: undefined,
    });
    densities.learn('t', {}, position(9 * HOUR), { count: 100, from: 8.5 * HOUR, to: 9 * HOUR });
    expect(densities.guess('t', {}, position(8.5 * HOUR), 8.5 * HOUR + 1)).toEqual({
      density: 200 / HOUR,
      slice: undefined,
    });
    expect(densities.guess('t', {}, null, 10 * HOUR)).toEqual({
      density: 100 / HOUR,
      floor: 9 * HOUR,
      slice: undefined,
    });
  });

  it('remembers the slice each page was read from', () => {
    const densities = pageDensities();
    densities.learn('t', {}, null, { count: 100, from: 9 * HOUR, to: 10 * HOUR, slice: 1 });
    densities.learn('t', {}, position(9 * HOUR), { count: 100, from: 8 * HOUR, to: 9 * HOUR, slice: 0 });
    expect(densities.guess('t', {}, null, 10 * HOUR)?.slice).toBe(1);
    expect(densities.guess('t', {}, position(8 * HOUR), 8 * HOUR + 1)?.slice).toBe(0);
  });

  it('offers a first page after a short one its range whole, and learns nothing from a short later page', () => {
    const densities = pageDensities();
    densities.learn('t', {}, null, { short: true, slice: 1 });
    expect(densities.guess('t', {}, null, 10 * HOUR)).toEqual({ whole: true, slice: 1 });
    densities.learn('t', {}, null, { count: 100, from: 9 * HOUR, to: 10 * HOUR });
    densities.learn('t', {}, position(9 * HOUR), { short: true });
    expect(densities.guess('t', {}, null, 10 * HOUR)).toEqual({
      density: 100 / HOUR,
      floor: 9 * HOUR,
      slice: undefined,
    });
    expect(densities.guess('t', {}, position(9 * HOUR), 9 * HOUR + 1)).toEqual({
      density: 100 / HOUR,
      slice: undefined,
    });
  });

  it('offers nothing to a page far from where the density was measured', () => {
    const densities = pageDensities();
    densities.learn('t', {}, position(9 * HOUR), { count: 100, from: 8 * HOUR, to: 9 * HOUR });
    expect(densities.guess('t', {}, position(2 * HOUR), 2 * HOUR + 1)).toBeUndefined();
    expect(densities.guess('t', {}, null, 10 * HOUR)).toBeUndefined();
  });

  it('keeps tenants and filters apart, and forgets the oldest beyond its bound', () => {
    const densities = pageDensities(2);
    densities.learn('t', { action: 'phi.read' }, null, { count: 10, from: 0, to: HOUR });
    expect(densities.guess('t', {}, null, HOUR)).toBeUndefined();
    expect(densities.guess('u', { action: 'phi.read' }, null, HOUR)).toBeUndefined();
    expect(densities.guess('t', { action: 'phi.read', since: 5 }, null, HOUR)).toBeUndefined();
    densities.learn('u', {}, null, { count: 10, from: 0, to: HOUR });
    densities.learn('v', {}, null, { count: 10, from: 0, to: HOUR });
    expect(densities.guess('t', { action: 'phi.read' }, null, HOUR)).toBeUndefined();
    expect(densities.guess('v', {}, null, HOUR)).toEqual({ density: 10 / HOUR, floor: 0, slice: undefined });
  });
});
