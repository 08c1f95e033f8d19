import { describe, expect, it } from 'vitest';
import { liveSecrets } from '@audit/shared/webhooks';
import { EndpointIndex, type ActiveEndpoint } from './endpoint-index.js';

const ep = (
  id: string,
  tenantId: string,
  filter: string[],
  createdAt = 0,
  patients: string[] = [],
): ActiveEndpoint => ({
  id,
  tenantId,
  url: `https://x/${id}`,
  filter,
  patients,
  secret: 's',
  previous: null,
  version: 1,
  ratePerSecond: null,
  createdAt,
});

/** An event of the tenant with that action, written at `at`, naming that patient ("" by default: none). */
const written = (tenant_id: string, action: string, ingested_at: number, patient_id = '') => ({
  tenant_id,
  action,
  ingested_at,
  patient_id,
});

const none = () => false;
const ids = (endpoints: ActiveEndpoint[]) => endpoints.map((e) => e.id);

describe('EndpointIndex', () => {
  const index = new EndpointIndex([
    ep('wh_00000001', 'a', []),
    ep('wh_00000002', 'a', ['phi.']),
    ep('wh_00000003', 'a', ['admin.'], 5000),
    ep('wh_00000004', 'b', []),
  ]);

  it("matches only the event's own tenant, by prefix", () => {
    expect(ids(index.matching(written('a', 'phi.read', 10_000), none))).toEqual([
      'wh_00000001',
      'wh_00000002',
    ]);
    expect(ids(index.matching(written('a', 'admin.key.create', 10_000), none))).toEqual([
      'wh_00000001',
      'wh_00000003',
    ]);
    expect(index.matching(written('c', 'phi.read', 10_000), none)).toEqual([]);
  });

  it('never matches an endpoint created after the event was written, unless its creation was read first', () => {
    expect(ids(index.matching(written('a', 'admin.key.create', 4999), none))).toEqual(['wh_00000001']);
    const created = (id: string) => id === 'wh_00000003';
    expect(ids(index.matching(written('a', 'admin.key.create', 4999), created))).toEqual([
      'wh_00000001',
      'wh_00000003',
    ]);
  });

  it("matches a patient-filtered endpoint only with an event naming one of its patients, and its action's filter", () => {
    const patients = new EndpointIndex([
      ep('wh_00000001', 'a', [], 0, ['p-1', 'p-2']),
      ep('wh_00000002', 'a', ['phi.'], 0, ['p-1']),
      ep('wh_00000003', 'a', []),
    ]);
    const at = (action: string, patient: string) =>
      ids(patients.matching(written('a', action, 1, patient), none));
    expect(at('phi.read', 'p-1')).toEqual(['wh_00000001', 'wh_00000002', 'wh_00000003']);
    expect(at('record.update', 'p-1')).toEqual(['wh_00000001', 'wh_00000003']);
    expect(at('phi.read', 'p-2')).toEqual(['wh_00000001', 'wh_00000003']);
    expect(at('phi.read', 'p-3')).toEqual(['wh_00000003']);
    expect(at('phi.read', '')).toEqual(['wh_00000003']);
  });

  it('forgets a removed endpoint at once', () => {
    const copy = new EndpointIndex([ep('wh_00000001', 'a', []), ep('wh_00000002', 'a', [])]);
    copy.remove('wh_00000001');
    expect(copy.get('wh_00000001')).toBeUndefined();
    expect(ids(copy.matching(written('a', 'phi.read', 1), none))).toEqual(['wh_00000002']);
    copy.remove('wh_00000002');
    expect(copy.size).toBe(0);
  });
});

describe('liveSecrets', () => {
  it('signs with the replaced secret too until its overlap ends, the current one first', () => {
    const endpoint = { secret: 'new', previous: { secret: 'old', expiresAt: 1000 } };
    expect(liveSecrets(endpoint, 999)).toEqual(['new', 'old']);
    expect(liveSecrets(endpoint, 1000)).toEqual(['new']);
    expect(liveSecrets({ secret: 'only', previous: null }, 0)).toEqual(['only']);
  });
});
