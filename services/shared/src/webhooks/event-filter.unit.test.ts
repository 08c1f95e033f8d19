import { describe, expect, it } from 'vitest';
import { matchesEndpoint, matchesFilter, matchesPatients } from './event-filter.js';

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

describe('matchesPatients', () => {
  it('[] matches every event, one naming no patient too', () => {
    expect(matchesPatients([], 'p-1')).toBe(true);
    expect(matchesPatients([], '')).toBe(true);
  });
  it('matches exactly the patients named: no prefix, no case folding, never an event naming none', () => {
    const patients = ['p-1', 'MRN 42'];
    expect(
      ['p-1', 'MRN 42', 'p-10', 'p-', 'P-1', 'mrn 42', ''].filter((p) => matchesPatients(patients, p)),
    ).toEqual(['p-1', 'MRN 42']);
  });
});

describe('matchesEndpoint', () => {
  const event = (action: string, patient_id: string) => ({ action, patient_id });
  it('needs both the action and the patient to match', () => {
    const endpoint = { filter: ['phi.'], patients: ['p-1'] };
    expect(matchesEndpoint(endpoint, event('phi.read', 'p-1'))).toBe(true);
    expect(matchesEndpoint(endpoint, event('phi.read', 'p-2'))).toBe(false);
    expect(matchesEndpoint(endpoint, event('admin.user.update', 'p-1'))).toBe(false);
  });
  it('with no action filter, every action of the patients named', () => {
    const endpoint = { filter: [], patients: ['p-1', 'p-2'] };
    expect(matchesEndpoint(endpoint, event('record.update', 'p-2'))).toBe(true);
    expect(matchesEndpoint(endpoint, event('record.update', ''))).toBe(false);
  });
  it('with neither, every event', () =>
    expect(matchesEndpoint({ filter: [], patients: [] }, event('record.update', ''))).toBe(true));
});
