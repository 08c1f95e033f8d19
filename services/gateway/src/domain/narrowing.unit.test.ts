import { describe, expect, it } from 'vitest';
import { coveredBy, narrowFilters, withinNarrowing } from './narrowing.js';

describe('narrowFilters', () => {
  const narrowing = { user_id: 'u-1', action_prefix: 'phi.' };

  it('adds the narrowing to a read that leaves its fields out', () => {
    expect(narrowFilters({ success: false }, narrowing)).toEqual({
      ok: true,
      filters: { success: false, user_id: 'u-1', action_prefix: 'phi.' },
    });
  });

  it('lets a read narrow further: the same value, a longer prefix, an action under the prefix', () => {
    expect(narrowFilters({ user_id: 'u-1', action_prefix: 'phi.re', action: 'phi.read' }, narrowing)).toEqual(
      {
        ok: true,
        filters: { user_id: 'u-1', action_prefix: 'phi.re', action: 'phi.read' },
      },
    );
  });

  it.each([
    [{ user_id: 'u-2' }, 'user_id'],
    [{ action_prefix: 'ph' }, 'action_prefix'],
    [{ action_prefix: 'admin.' }, 'action_prefix'],
    [{ action: 'admin.login' }, 'action'],
  ] as const)('refuses a read that reaches past it: %j', (given, field) => {
    expect(narrowFilters(given, narrowing)).toEqual({ ok: false, field });
  });

  it('leaves a read alone when there is nothing to narrow to', () => {
    expect(narrowFilters({ user_id: 'u-9' }, {})).toEqual({ ok: true, filters: { user_id: 'u-9' } });
  });
});

describe('withinNarrowing', () => {
  const event = {
    user_id: 'u-1',
    resource_type: 'patient',
    resource_id: 'p-7',
    action: 'phi.read',
    patient_id: 'p-7',
  };

  it('holds an event to every field of the narrowing', () => {
    expect(withinNarrowing(event, { resource_type: 'patient', resource_id: 'p-7' })).toBe(true);
    expect(withinNarrowing(event, { action_prefix: 'phi.' })).toBe(true);
    expect(withinNarrowing(event, { resource_type: 'patient', resource_id: 'p-8' })).toBe(false);
    expect(withinNarrowing(event, { action_prefix: 'admin.' })).toBe(false);
    expect(withinNarrowing(event, { patient_id: 'p-7' })).toBe(true);
    expect(withinNarrowing(event, { patient_id: 'p-8' })).toBe(false);
    expect(withinNarrowing(event, {})).toBe(true);
  });
});

describe('coveredBy', () => {
  it('holds when the filters already select only inside the narrowing', () => {
    expect(coveredBy({ user_id: 'u-1', since: 1 }, { user_id: 'u-1' })).toBe(true);
    expect(coveredBy({ action_prefix: 'phi.read' }, { action_prefix: 'phi.' })).toBe(true);
    expect(coveredBy({ since: 1 }, { user_id: 'u-1' })).toBe(false);
    expect(coveredBy({ user_id: 'u-2' }, { user_id: 'u-1' })).toBe(false);
    expect(coveredBy({ action: 'phi.read' }, { action_prefix: 'phi.' })).toBe(false);
  });
});
