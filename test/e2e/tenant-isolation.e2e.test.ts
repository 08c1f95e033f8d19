import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingest, makeEvent, type TestEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pageThrough, type Page } from '../support/paging.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { countRows, storedEvents } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

const ACTIONS = ['phi.read', 'phi.query', 'phi.export', 'admin.key.create', 'admin.user.update'] as const;
const TYPES = ['claim', 'upload', 'note'] as const;

const { names, ingest: ingestProc, ch } = pipelineFixture('isolation');
// A large read budget: the properties make many requests with one key.
const gw = gatewayFixture(names, { env: { RATE_LIMIT_READ_PER_MIN: '1000000' } });
const tenantA = names.tenant;
const tenantB = `${names.tenant}-b`;
const BASE = Date.now() - 3 * 86_400_000;

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
    timestamp: new Date(BASE + r.minute * 60_000).toISOString(),
  }));
}

const eventsA = randomEvents(tenantA, 150, 1);
const eventsB = randomEvents(tenantB, 150, 2);
type Stored = Awaited<ReturnType<typeof storedEvents>>[number];
let storedA: Stored[] = [];
let keyA: string;
let keyB: string;

const newestFirst = (a: Stored, b: Stored) =>
  b.timestamp.localeCompare(a.timestamp) || b.event_id.localeCompare(a.event_id);

const queryArb = fc.record({
  action: fc.option(fc.constantFrom(...ACTIONS), { nil: undefined }),
  resource_type: fc.option(fc.constantFrom(...TYPES), { nil: undefined }),
  phi_involved: fc.option(fc.boolean(), { nil: undefined }),
  limit: fc.constantFrom(1, 7, 100, 1000),
});
type Query = typeof queryArb extends fc.Arbitrary<infer Q> ? Q : never;

const toQueryString = (q: Query) =>
  Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join('&');

const matches = (q: Query) => (e: Stored) =>
  (q.action === undefined || e.action === q.action) &&
  (q.resource_type === undefined || e.resource_type === q.resource_type) &&
  (q.phi_involved === undefined || e.phi_involved === q.phi_involved);

beforeAll(async () => {
  keyA = await gw.mint(tenantA, 'audit:read');
  keyB = await gw.mint(tenantB, 'audit:read');
  expect((await ingest(ingestProc.url, names.ingestToken, [...eventsA, ...eventsB])).status).toBe(202);
  // Each tenant also holds the admin.key.create event of its own key.
  await waitFor(
    'events stored',
    async () => (await countRows(ch, tenantA)) === 151 && (await countRows(ch, tenantB)) === 151,
  );
  storedA = await storedEvents(ch, tenantA);
});

describe('tenant isolation', () => {
  it("any list query returns exactly the tenant's own matching events, never another tenant's", async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, async (q) => {
        const listed = await pageThrough(gw.get, toQueryString(q), keyA);
        expect(listed.every((e) => e.tenant_id === tenantA)).toBe(true);
        expect(listed.map((e) => e.event_id)).toEqual(
          storedA
            .filter(matches(q))
            .sort(newestFirst)
            .map((e) => e.event_id),
        );
      }),
      { numRuns: 12, seed: 3 },
    );
  });

  it("another tenant's ids answer exactly like ids that do not exist", async () => {
    const unknown = await gw.get('/audit/events/00000000-0000-4000-8000-000000000000', keyA);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...eventsB), fc.uuid(), async (foreign, random) => {
        for (const id of [foreign.event_id, random]) {
          const res = await gw.get(`/audit/events/${id}`, keyA);
          expect(res.status).toBe(404);
          expect(res.text).toBe(unknown.text);
        }
      }),
      { numRuns: 30, seed: 4 },
    );
    expect((await gw.get(`/audit/events/${eventsB[0]!.event_id}`, keyB)).status).toBe(200);
  });

  it("another tenant's cursor is refused, whatever the filters", async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, async (q) => {
        const query = toQueryString({ ...q, limit: 1 });
        const first = JSON.parse((await gw.get(`/audit/events?${query}`, keyB)).text) as Page;
        fc.pre(first.page.next_cursor !== null);
        const res = await gw.get(
          `/audit/events?${query}&cursor=${encodeURIComponent(first.page.next_cursor!)}`,
          keyA,
        );
        expect(res.status).toBe(422);
      }),
      { numRuns: 12, seed: 5 },
    );
  });
});
