import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { waitFor } from '../support/wait-for.js';

// The retention policy and legal holds through the API (docs/retention.md, docs/api.md "Retention and legal
// holds"): validated, versioned, limited, and every change in the tenant's own trail.
const { names } = pipelineFixture('retention');
// The limit test writes more than a key's default bucket holds.
const gw = gatewayFixture(names, { env: { RATE_LIMIT_WRITE_PER_MIN: '5000' } });

interface TrailEvent {
  action: string;
  user_id: string;
  user_role: string;
  resource_type: string;
  resource_id: string;
  patient_id: string;
  details: string;
}
interface Hold {
  hold_id: string;
  status: string;
  reason: string;
  scope: Record<string, string>;
  released_at: string | null;
  release_reason: string | null;
}

const body = <T>(res: { text: string }) => JSON.parse(res.text) as T;
const prefixOf = (key: string) => key.split('_')[2]!;

/** The tenant's events whose action starts with `prefix`, once there are `count` of them, newest first. */
async function trail(key: string, prefix: string, count: number): Promise<TrailEvent[]> {
  return waitFor(`${count} ${prefix} events in the trail`, async () => {
    const res = await gw.get(`/audit/events?action_prefix=${prefix}`, key);
    const events = body<{ events: TrailEvent[] }>(res).events;
    return events.length >= count ? events : undefined;
  });
}

const setPolicy = (key: string, policy: unknown) => gw.send('PUT', '/audit/retention', key, policy);
const createHold = (key: string, hold: unknown) => gw.send('POST', '/audit/legal-holds', key, hold);
const release = (key: string, id: string, reason: unknown = { reason: 'Matter settled' }) =>
  gw.send('POST', `/audit/legal-holds/${id}/release`, key, reason);

describe('retention policy', () => {
  it('is the default until set, then a new version each time, exactly under concurrent writes, each in the trail', async () => {
    const admin = await gw.mint(names.tenant, 'audit:read,retention:write');
    expect(body(await gw.get('/audit/retention', admin))).toEqual({
      min_days: 2192,
      max_days: null,
      version: 0,
      changed_at: null,
      changed_by: null,
      default: true,
      purged_before: null,
      last_purge: null,
    });

    const first = await setPolicy(admin, { min_days: 365, max_days: 3650 });
    expect(first.status, first.text).toBe(200);
    expect(body(first)).toEqual({
      min_days: 365,
      max_days: 3650,
      version: 1,
      changed_at: expect.stringMatching(/\+00:00$/),
      changed_by: `api_key:${prefixOf(admin)}`,
      default: false,
      purged_before: null,
      last_purge: null,
    });
    const results = await Promise.all(
      [400, 500, 600, 700].map((min) => setPolicy(admin, { min_days: min, max_days: null })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const versions = results.map((r) => body<{ version: number }>(r).version).sort((a, b) => a - b);
    expect(versions).toEqual([2, 3, 4, 5]);
    const current = body<{ version: number; min_days: number }>(await gw.get('/audit/retention', admin));
    expect(current.version).toBe(5);

    const events = await trail(admin, 'admin.retention.', 5);
    expect(events).toHaveLength(5);
    expect(events[0]).toMatchObject({
      action: 'admin.retention.update',
      user_id: `api_key:${prefixOf(admin)}`,
      user_role: 'api_key',
      resource_type: 'retention_policy',
      resource_id: names.tenant,
    });
    const details = events.map((e) => JSON.parse(e.details) as { version: number; min_days: number });
    expect(details.map((d) => d.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(details.find((d) => d.version === 1)).toEqual({
      min_days: 365,
      max_days: 3650,
      version: 1,
      previous: { min_days: 2192, max_days: null },
    });
    // Each version names the one it replaced: the chain is whole, whatever order the writes took.
    const byVersion = new Map(details.map((d) => [d.version, d]));
    for (let v = 2; v <= 5; v++) {
      expect(byVersion.get(v)).toMatchObject({
        previous: { min_days: byVersion.get(v - 1)!.min_days },
      });
    }
    expect(byVersion.get(5)!.min_days).toBe(current.min_days);
  });
});

describe('legal holds', () => {
  it('are created, listed, paged, read and released once, each change in the trail', async () => {
    const tenant = `${names.tenant}-holds`;
    const admin = await gw.mint(tenant, 'audit:read,retention:write');
    const made: Hold[] = [];
    for (const hold of [
      {
        reason: 'Matter 2026-114',
        scope: { patient_id: 'p-1042', since: '2025-01-01T00:00:00Z', until: '2026-01-01T00:00:00+01:00' },
      },
      { reason: 'Internal review', scope: { user_id: 'dr-who' } },
      { reason: '  Litigation: everything  ' },
    ]) {
      const res = await createHold(admin, hold);
      expect(res.status, res.text).toBe(201);
      made.push(body<Hold>(res));
    }
    const [a, b, c] = made as [Hold, Hold, Hold];
    expect(a).toMatchObject({
      status: 'active',
      scope: {
        patient_id: 'p-1042',
        since: '2025-01-01T00:00:00.000+00:00',
        until: '2025-12-31T23:00:00.000+00:00',
      },
      released_at: null,
    });
    expect(c).toMatchObject({ reason: 'Litigation: everything', scope: {} });

    const listed = body<{ holds: Hold[]; page: object }>(await gw.get('/audit/legal-holds', admin));
    expect(listed.holds.map((h) => h.hold_id)).toEqual([c.hold_id, b.hold_id, a.hold_id]);
    expect(listed.page).toEqual({ limit: 50, returned: 3, next_cursor: null, has_more: false });
    const first = body<{ holds: Hold[]; page: { next_cursor: string; has_more: boolean } }>(
      await gw.get('/audit/legal-holds?limit=2', admin),
    );
    expect(first.holds.map((h) => h.hold_id)).toEqual([c.hold_id, b.hold_id]);
    expect(first.page.has_more).toBe(true);
    const cursor = encodeURIComponent(first.page.next_cursor);
    const second = body<{ holds: Hold[]; page: { has_more: boolean } }>(
      await gw.get(`/audit/legal-holds?limit=2&cursor=${cursor}`, admin),
    );
    expect(second.holds.map((h) => h.hold_id)).toEqual([a.hold_id]);
    expect(second.page.has_more).toBe(false);
    // A cursor is the tenant's and the status's it was issued for.
    expect((await gw.get(`/audit/legal-holds?status=all&cursor=${cursor}`, admin)).status).toBe(422);
    const stranger = await gw.mint(`${names.tenant}-stranger`, 'audit:read');
    expect((await gw.get(`/audit/legal-holds?cursor=${cursor}`, stranger)).status).toBe(422);
    expect(body<{ holds: Hold[] }>(await gw.get('/audit/legal-holds', stranger)).holds).toEqual([]);
    expect((await gw.get(`/audit/legal-holds/${a.hold_id}`, stranger)).status).toBe(404);

    expect(body(await gw.get(`/audit/legal-holds/${a.hold_id.toUpperCase()}`, admin))).toEqual(a);
    expect((await gw.get(`/audit/legal-holds/${randomUUID()}`, admin)).status).toBe(404);
    expect((await gw.get('/audit/legal-holds/not-a-hold', admin)).status).toBe(422);

    const released = await release(admin, b.hold_id);
    expect(released.status, released.text).toBe(200);
    expect(body(released)).toMatchObject({
      hold_id: b.hold_id,
      status: 'released',
      released_by: `api_key:${prefixOf(admin)}`,
      release_reason: 'Matter settled',
    });
    const again = await release(admin, b.hold_id, { reason: 'Once more' });
    expect(again.status).toBe(200);
    expect(again.text).toBe(released.text);
    expect((await release(admin, randomUUID())).status).toBe(404);
    expect((await release(stranger, a.hold_id)).status).toBe(403);

    const ids = async (status: string) =>
      body<{ holds: Hold[] }>(await gw.get(`/audit/legal-holds?status=${status}`, admin)).holds.map(
        (h) => h.hold_id,
      );
    expect(await ids('active')).toEqual([c.hold_id, a.hold_id]);
    expect(await ids('released')).toEqual([b.hold_id]);
    expect(await ids('all')).toEqual([c.hold_id, b.hold_id, a.hold_id]);

    // Three creations and one release: the second release wrote nothing.
    const events = await trail(admin, 'admin.legal_hold.', 4);
    expect(events.map((e) => [e.action, e.resource_id])).toEqual([
      ['admin.legal_hold.release', b.hold_id],
      ['admin.legal_hold.create', c.hold_id],
      ['admin.legal_hold.create', b.hold_id],
      ['admin.legal_hold.create', a.hold_id],
    ]);
    expect(events.every((e) => e.resource_type === 'legal_hold' && e.user_role === 'api_key')).toBe(true);
    expect(JSON.parse(events[0]!.details)).toEqual({
      reason: 'Matter settled',
      held_because: 'Internal review',
      scope: { user_id: 'dr-who' },
    });
    expect(JSON.parse(events[3]!.details)).toEqual({ reason: 'Matter 2026-114', scope: a.scope });
    // A hold is no access to the patient's records: its event names no patient.
    expect(events[3]!.patient_id).toBe('');
  });

  it(`are at most 100 in force, exactly under concurrent requests`, async () => {
    const tenant = `${names.tenant}-many`;
    const admin = await gw.mint(tenant, 'audit:read,retention:write');
    for (let i = 0; i < 96; i++) {
      const res = await createHold(admin, { reason: `matter ${i}` });
      expect(res.status, res.text).toBe(201);
    }
    const racing = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createHold(admin, { reason: `race ${i}` })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 409, 409, 409, 409]);
    const refused = racing.find((r) => r.status === 409)!;
    expect(body(refused)).toMatchObject({ error: 'limit_reached' });
    const page = body<{ holds: Hold[]; page: { has_more: boolean } }>(
      await gw.get('/audit/legal-holds?limit=100', admin),
    );
    expect([page.holds.length, page.page.has_more]).toEqual([100, false]);
    expect((await release(admin, page.holds[0]!.hold_id)).status).toBe(200);
    expect((await createHold(admin, { reason: 'one more' })).status).toBe(201);
  });
});

describe('refusals', () => {
  it('name the fields, change nothing, and leave nothing in the trail', async () => {
    const tenant = `${names.tenant}-bad`;
    const admin = await gw.mint(tenant, 'audit:read,retention:write');
    const reader = await gw.mint(tenant, 'audit:read');
    const writer = await gw.mint(tenant, 'retention:write');
    const policies: [unknown, string[]][] = [
      [{ min_days: 400, max_days: 399 }, ['max_days']],
      [{ min_days: 0, max_days: null }, ['min_days']],
      [{ min_days: 30 }, ['max_days']],
      [{ min_days: 30, max_days: null, purge: true }, ['purge']],
      ['[1]', ['(body)']],
    ];
    for (const [policy, fields] of policies) {
      const res = await setPolicy(admin, policy);
      expect(res.status, `${JSON.stringify(policy)}: ${res.text}`).toBe(422);
      expect(body<{ details: { field: string }[] }>(res).details.map((d) => d.field)).toEqual(fields);
    }
    const holds: [unknown, string[]][] = [
      [{}, ['reason']],
      [{ reason: ' ' }, ['reason']],
      [
        { reason: 'x', scope: { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' } },
        ['scope.since'],
      ],
      [{ reason: 'x', scope: { action: 'phi.read' } }, ['scope.action']],
      [{ reason: 'x', scope: { user_id: 'a\u0000b' } }, ['scope.user_id']],
      [{ reason: 'x', extra: 1 }, ['extra']],
    ];
    for (const [hold, fields] of holds) {
      const res = await createHold(admin, hold);
      expect(res.status, `${JSON.stringify(hold)}: ${res.text}`).toBe(422);
      expect(body<{ details: { field: string }[] }>(res).details.map((d) => d.field)).toEqual(fields);
    }
    expect((await setPolicy(admin, '{"min_days":')).status).toBe(400);
    // Without retention:write (or audit:read to read), 403 whatever is sent.
    expect((await setPolicy(reader, { min_days: 30, max_days: null })).status).toBe(403);
    expect((await createHold(reader, { reason: 'x' })).status).toBe(403);
    expect((await release(reader, randomUUID())).status).toBe(403);
    expect((await gw.get('/audit/retention', writer)).status).toBe(403);
    expect((await gw.get('/audit/legal-holds', writer)).status).toBe(403);

    expect(body(await gw.get('/audit/retention', admin))).toMatchObject({ version: 0, default: true });
    expect(body(await gw.get('/audit/legal-holds?status=all', admin))).toMatchObject({ holds: [] });
    // One change made last: once it is in the trail, the refused ones would have been before it.
    expect((await setPolicy(admin, { min_days: 30, max_days: 60 })).status).toBe(200);
    const policyEvents = await trail(admin, 'admin.retention.', 1);
    expect(policyEvents.map((e) => JSON.parse(e.details).version)).toEqual([1]);
    const holdEvents = await gw.get('/audit/events?action_prefix=admin.legal_hold.', admin);
    expect(body<{ events: TrailEvent[] }>(holdEvents).events).toEqual([]);
  });

  it('refuse a viewer token narrowed to a filter on every route', async () => {
    const tenant = `${names.tenant}-viewer`;
    const admin = await gw.mint(tenant, 'audit:read,retention:write,viewer:issue');
    const hold = body<Hold>(await createHold(admin, { reason: 'x' }));
    const made = await gw.send('POST', '/audit/viewer-tokens', admin, { narrowed_to: { user_id: 'u-1' } });
    const { token } = body<{ token: string }>(made);
    for (const path of ['/audit/retention', '/audit/legal-holds', `/audit/legal-holds/${hold.hold_id}`]) {
      const res = await gw.get(path, token);
      expect(res.status, path).toBe(403);
      expect(res.text).toContain('narrowed');
    }
    const plain = body<{ token: string }>(await gw.send('POST', '/audit/viewer-tokens', admin, {})).token;
    expect((await gw.get('/audit/retention', plain)).status).toBe(200);
  });
});
