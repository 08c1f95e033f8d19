import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingest, makeEvent, type TestEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { newestFirst, pageThrough, type Listed, type Page } from '../support/paging.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { countRows, storedEvents } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

const ACTIONS = ['phi.read', 'phi.query', 'phi.export', 'admin.role.grant', 'admin.user.update'] as const;
const TYPES = ['claim', 'upload', 'note'] as const;

const { names, ingest: ingestProc, ch } = pipelineFixture('isolation');
// A large read budget: the properties make many requests with one key.
const gw = gatewayFixture(names, { env: { RATE_LIMIT_READ_PER_MIN: '1000000' } });
// tenantA's name is a prefix of tenantB's: a tenant filter that matched by prefix would show at once.
const tenantA = names.tenant;
const tenantB = `${names.tenant}-b`;
const BASE = Date.now() - 3 * 86_400_000;
const minuteIso = (m: number) => new Date(BASE + m * 60_000).toISOString();

/** Random events (fixed seed, so a failure replays): actions, types, PHI flags, and clustered timestamps. */
function randomEvents(tenant: string, count: number, seed: number): TestEvent[] {
  const arb = fc.record({
    action: fc.constantFrom(...ACTIONS),
    resource_type: fc.constantFrom(...TYPES),
    phi: fc.boolean(),
    minute: fc.integer({ min: 0, max: 4000 }),
  });
  return fc.sample(arb, { numRuns: count, seed }).map((r, i) => ({
    ...makeEvent(tenant, i),
    action: r.action,
    resource_type: r.resource_type,
    phi_involved: r.phi,
    fields_accessed: r.phi ? ['dob'] : [],
    timestamp: minuteIso(r.minute),
  }));
}

const sent: Record<string, TestEvent[]> = {
  [tenantA]: randomEvents(tenantA, 150, 1),
  [tenantB]: randomEvents(tenantB, 150, 2),
};

/** The oracle: what each tenant was sent, plus the admin.key.create event of its own key. */
const expectedOf: Record<string, Listed[]> = {};
const keys: Record<string, string> = {};

const queryArb = fc
  .record({
    action: fc.option(fc.constantFrom(...ACTIONS), { nil: undefined }),
    resource_type: fc.option(fc.constantFrom(...TYPES), { nil: undefined }),
    phi_involved: fc.option(fc.boolean(), { nil: undefined }),
    window: fc.option(fc.tuple(fc.integer({ min: 0, max: 4000 }), fc.integer({ min: 1, max: 3000 })), {
      nil: undefined,
    }),
    limit: fc.constantFrom(1, 7, 100, 1000),
  })
  .map(({ window, ...q }) => ({
    ...q,
    since: window ? minuteIso(window[0]) : undefined,
    until: window ? minuteIso(window[0] + window[1]) : undefined,
  }));
type Query = typeof queryArb extends fc.Arbitrary<infer Q> ? Q : never;

const toQueryString = (q: Query) =>
  Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

const matches = (q: Query) => (e: Listed) =>
  (q.action === undefined || e.action === q.action) &&
  (q.resource_type === undefined || e.resource_type === q.resource_type) &&
  (q.phi_involved === undefined || e.phi_involved === q.phi_involved) &&
  (q.since === undefined || e.timestamp >= q.since) &&
  (q.until === undefined || e.timestamp < q.until);

beforeAll(async () => {
  keys[tenantA] = await gw.mint(tenantA, 'audit:read');
  keys[tenantB] = await gw.mint(tenantB, 'audit:read');
  expect(
    (await ingest(ingestProc.url, names.ingestToken, [...sent[tenantA]!, ...sent[tenantB]!])).status,
  ).toBe(202);
  await waitFor(
    'events stored',
    async () => (await countRows(ch, tenantA)) === 151 && (await countRows(ch, tenantB)) === 151,
  );
  for (const tenant of [tenantA, tenantB]) {
    const keyEvents = (await storedEvents(ch, tenant)).filter((e) => e.resource_type === 'api_key');
    expect(keyEvents).toHaveLength(1);
    expectedOf[tenant] = [...sent[tenant]!, ...keyEvents];
  }
});

describe('tenant isolation', () => {
  it("any list query, by either tenant, returns exactly that tenant's own matching events", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(tenantA, tenantB), queryArb, async (tenant, q) => {
        const other = tenant === tenantA ? tenantB : tenantA;
        const foreign = new Set<string>(sent[other]!.map((e) => e.event_id));
        const listed = await pageThrough(gw.get, toQueryString(q), keys[tenant]!);
        expect(listed.filter((e) => e.tenant_id !== tenant || foreign.has(e.event_id))).toEqual([]);
        expect(listed.map((e) => e.event_id)).toEqual(
          expectedOf[tenant]!.filter(matches(q))
            .sort(newestFirst)
            .map((e) => e.event_id),
        );
      }),
      { numRuns: 16, seed: 3 },
    );
  });

  it("another tenant's ids answer exactly like ids that do not exist", async () => {
    const unknown = await gw.get('/audit/events/00000000-0000-4000-8000-000000000000', keys[tenantA]);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...sent[tenantB]!), fc.uuid(), async (foreign, random) => {
        for (const id of [foreign.event_id, random]) {
          const res = await gw.get(`/audit/events/${id}`, keys[tenantA]);
          expect(res.status).toBe(404);
          expect(res.text).toBe(unknown.text);
        }
      }),
      { numRuns: 30, seed: 4 },
    );
    expect((await gw.get(`/audit/events/${sent[tenantB]![0]!.event_id}`, keys[tenantB])).status).toBe(200);
  });

  it("another tenant's cursor is refused, whatever the filters, and the refusal tells nothing of it", async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, async (q) => {
        const query = toQueryString({ ...q, limit: 1 });
        const first = JSON.parse((await gw.get(`/audit/events?${query}`, keys[tenantB])).text) as Page;
        fc.pre(first.page.next_cursor !== null);
        const cursor = encodeURIComponent(first.page.next_cursor!);
        const res = await gw.get(`/audit/events?${query}&cursor=${cursor}`, keys[tenantA]);
        expect(res.status).toBe(422);
        expect(res.text).not.toContain(tenantB);
      }),
      { numRuns: 12, seed: 5 },
    );
  });
});
