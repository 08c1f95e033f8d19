import { describe, expect, it } from 'vitest';
import { matchesFilter } from './event-filter.js';

const ACTIONS = ['phi.read', 'phi.query', 'phi.export', 'phi.decrypt', 'admin.key.create', 'audit.export'];
const matched = (filter: string[]) => ACTIONS.filter((a) => matchesFilter(filter, a));

describe('matchesFilter (the spec examples)', () => {
  it('[] matches all', () => expect(matched([])).toEqual(ACTIONS));
  it('["phi."] matches the PHI actions', () =>
    expect(matched(['phi.'])).toEqual(['phi.read', 'phi.query', 'phi.export', 'phi.decrypt']));
  it('["phi.read"] matches only phi.read', () => expect(matched(['phi.read'])).toEqual(['phi.read']));
  it('["phi.", "admin."] matches PHI and admin actions', () =>
    expect(matched(['phi.', 'admin.'])).toEqual(ACTIONS.slice(0, 5)));
  it('is a prefix, not a word match', () => expect(matched(['phi.re'])).toEqual(['phi.read']));
});
