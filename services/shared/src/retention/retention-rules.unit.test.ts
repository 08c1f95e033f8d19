import { describe, expect, it } from 'vitest';
import { holdCreateSchema, holdReleaseSchema } from './legal-hold.js';
import { legalHoldEvent, retentionPolicyEvent } from './retention-audit-event.js';
import { DEFAULT_POLICY, policyChangeSchema } from './retention-policy.js';

const issues = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.success ? [] : result.error!.issues.map((i) => i.path.join('.'));

describe('a policy change', () => {
  it('takes both bounds, the maximum null or not below the minimum', () => {
    expect(policyChangeSchema.parse({ min_days: 365, max_days: 730 })).toEqual({
      min_days: 365,
      max_days: 730,
    });
    expect(policyChangeSchema.parse({ min_days: 2192, max_days: null })).toEqual({
      min_days: 2192,
      max_days: null,
    });
    expect(policyChangeSchema.parse({ min_days: 10, max_days: 10 })).toEqual({ min_days: 10, max_days: 10 });
  });

  it.each([
    [{ min_days: 400, max_days: 399 }, ['max_days']],
    [{ min_days: 0, max_days: null }, ['min_days']],
    [{ min_days: 36_501, max_days: null }, ['min_days']],
    [{ min_days: 1.5, max_days: null }, ['min_days']],
    [{ min_days: '30', max_days: null }, ['min_days']],
    [{ min_days: 30 }, ['max_days']],
    [{ max_days: 30 }, ['min_days']],
    [{ min_days: 30, max_days: null, keep: true }, ['']],
  ])('refuses %j, naming %j', (body, paths) => {
    expect(issues(policyChangeSchema.safeParse(body))).toEqual(paths);
  });
});

describe('a hold', () => {
  it('takes a reason and a scope of the list’s own fields, times read as RFC 3339', () => {
    expect(
      holdCreateSchema.parse({
        reason: '  Case 24-cv-0113  ',
        scope: {
          user_id: 'u-1',
          patient_id: 'p-1',
          since: '2024-01-01T00:00:00Z',
          until: '2025-01-01T00:00:00+01:00',
        },
      }),
    ).toEqual({
      reason: 'Case 24-cv-0113',
      scope: {
        user_id: 'u-1',
        patient_id: 'p-1',
        since: Date.UTC(2024, 0, 1),
        until: Date.UTC(2024, 11, 31, 23),
      },
    });
    expect(holdCreateSchema.parse({ reason: 'everything' })).toEqual({ reason: 'everything', scope: {} });
  });

  it.each([
    [{}, ['reason']],
    [{ reason: '   ' }, ['reason']],
    [{ reason: 'x'.repeat(501) }, ['reason']],
    [{ reason: 'r', scope: { user_id: '' } }, ['scope.user_id']],
    [{ reason: 'r', scope: { since: 'yesterday' } }, ['scope.since']],
    [
      { reason: 'r', scope: { since: '2025-01-01T00:00:00Z', until: '2025-01-01T00:00:00Z' } },
      ['scope.since'],
    ],
    [{ reason: 'r', scope: { action: 'phi.read' } }, ['scope']],
    [{ reason: 'r', filter: {} }, ['']],
  ])('refuses %j, naming %j', (body, paths) => {
    expect(issues(holdCreateSchema.safeParse(body))).toEqual(paths);
  });

  it('is released with a reason of its own', () => {
    expect(holdReleaseSchema.parse({ reason: 'settled' })).toEqual({ reason: 'settled' });
    expect(issues(holdReleaseSchema.safeParse({}))).toEqual(['reason']);
  });
});

describe('the audit events', () => {
  const actor = {
    user_id: 'api_key:0123abcd',
    user_role: 'api_key',
    source_ip: '203.0.113.9',
    user_agent: 'curl',
  };

  it('record a policy with the bounds it replaced', () => {
    const policy = { min_days: 365, max_days: 730, version: 3, changed_at: new Date(), changed_by: 'x' };
    expect(retentionPolicyEvent('t-1', actor, policy, DEFAULT_POLICY)).toMatchObject({
      tenant_id: 't-1',
      action: 'admin.retention.update',
      resource_type: 'retention_policy',
      resource_id: 't-1',
      user_id: 'api_key:0123abcd',
      source_ip: '203.0.113.9',
      phi_involved: false,
      success: true,
      details: { min_days: 365, max_days: 730, version: 3, previous: { min_days: 2192, max_days: null } },
    });
  });

  it('record a hold and its release, the patient kept in the details only', () => {
    const hold = {
      hold_id: '7b0c1c2e-7f0e-4c55-9d1a-0c7a8d0e5f11',
      reason: 'Case 1',
      scope: { patient_id: 'p-1', since: Date.UTC(2024, 0, 1) },
      created_at: new Date(),
      created_by: 'api_key:0123abcd',
      released_at: null,
      released_by: null,
      release_reason: null,
    };
    const created = legalHoldEvent('t-1', actor, hold);
    expect(created).toMatchObject({
      action: 'admin.legal_hold.create',
      resource_type: 'legal_hold',
      resource_id: hold.hold_id,
      details: { reason: 'Case 1', scope: { patient_id: 'p-1', since: '2024-01-01T00:00:00.000+00:00' } },
    });
    expect(created).not.toHaveProperty('patient_id');
    const released = legalHoldEvent('t-1', actor, {
      ...hold,
      released_at: new Date(),
      released_by: 'ops',
      release_reason: 'settled',
    });
    expect(released).toMatchObject({
      action: 'admin.legal_hold.release',
      details: { reason: 'settled', held_because: 'Case 1', scope: { patient_id: 'p-1' } },
    });
  });
});
