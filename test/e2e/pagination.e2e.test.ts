import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sqlValue } from '@audit/shared/platform';
import { ingest, makeEvent, type TestEvent } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { newestFirst, pageThrough, type Listed, type Page } from '../support/paging.js';
import { indexedEventIds } from '../support/filter-index.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { testGuard } from '../support/stack.js';
import { countRows, storedEvents } from '../support/stored-events.js';
import { byVolume } from '../support/volume.js';
import { waitFor } from '../support/wait-for.js';

// One seed drives the history, the queries and the background batches; fast-check prints it on a failure too.
const SEED = Number(process.env.PAGINATION_SEED ?? 20_261_121);
console.info(`pagination properties: seed ${SEED} (replay with PAGINATION_SEED=${SEED})`);

const ACTIONS = ['phi.read', 'phi.query', 'phi.export', 'admin.user.update'] as const;
const TYPES = ['claim', 'upload', 'note'] as const;
// The service writes into the tenant's trail too: the key's admin.key.create and every export's audit.export.
const SERVICE_TYPES = ['api_key', 'audit_export'];
const HISTORY = 3000;
const HOUR = 3_600_000;
const NOW = Date.now();
const OLDEST = NOW - 48 * HOUR;
const NEWEST = NOW - HOUR;
// Every page is a request: a query is narrowed to its newest events when it would take more pages than this.
const MAX_PAGES = 100;
// Page boundaries of a concurrent paging at which events tied to the cursor's millisecond are ingested first.
const TIED_BOUNDARIES = 3;

const { names, ingest: ingestProc, ch } = pipelineFixture('pagination');
let guard: ReturnType<typeof testGuard> | undefined;
// The other tenant has the same history under other ids: every filter value matches there too, and must not leak.
const otherTenant = `${names.tenant}-b`;
// Properties page with limit 1 and export repeatedly with one key: budgets far above what they use.
const gw = gatewayFixture(names, {
  env: { RATE_LIMIT_READ_PER_MIN: '1000000', RATE_LIMIT_WRITE_PER_MIN: '1000000' },
});
const tenant = names.tenant;
let key: string;

const weighted = <T>(...choices: [number, fc.Arbitrary<T>][]) =>
  fc.oneof(...choices.map(([weight, arbitrary]) => ({ weight, arbitrary })));

// Each field has a value of most events, one of a few, and many of one or two events each.
const attributesArb = fc.record({
  action: fc.constantFrom(...ACTIONS),
  resource_type: fc.constantFrom(...TYPES),
  phi_involved: fc.boolean(),
  user_id: weighted(
    [12, fc.constant('u-main')],
    [1, fc.constant('u-few')],
    [3, fc.integer({ min: 0, max: 999 }).map((n) => `u-${n}`)],
  ),
  resource_id: weighted(
    [10, fc.integer({ min: 0, max: 9 }).map((n) => `patient-${n}`)],
    [1, fc.constant('patient-hot')],
    [3, fc.integer({ min: 10, max: 99_999 }).map((n) => `patient-${n}`)],
  ),
  success: weighted([9, fc.constant(true)], [1, fc.constant(false)]),
  source_ip: weighted([8, fc.constant('10.0.0.1')], [1, fc.constant('2001:db8::1')], [2, fc.ipV4()]),
});
type Attributes = Pick<
  Listed,
  'action' | 'resource_type' | 'phi_involved' | 'user_id' | 'resource_id' | 'success' | 'source_ip'
>;

// Addresses are sent in other spellings too; they are stored, listed and filtered in their canonical text.
const SPELLINGS: Record<string, string[]> = {
  '10.0.0.1': ['10.0.0.1', '::ffff:10.0.0.1', '0:0:0:0:0:FFFF:a00:1'],
  '2001:db8::1': ['2001:db8::1', '2001:DB8:0:0::1'],
};

const eventAt = (i: number, ms: number, a: Attributes, owner = tenant): TestEvent => ({
  ...makeEvent(owner, i),
  timestamp: new Date(ms).toISOString(),
  ...a,
  source_ip: SPELLINGS[a.source_ip]?.[i % SPELLINGS[a.source_ip]!.length] ?? a.source_ip,
  fields_accessed: a.phi_involved ? ['dob'] : [],
});

/**
 * Runs of 1 to 30 events share a millisecond (ties broken by event_id) over two days. The ids come from the seed
 * too, so a replay has the same ties in the same order.
 */
function history(): TestEvent[] {
  const runArb = fc.record({
    ms: fc.integer({ min: OLDEST, max: NEWEST }),
    size: fc.oneof(
      { weight: 5, arbitrary: fc.constant(1) },
      { weight: 4, arbitrary: fc.integer({ min: 2, max: 5 }) },
      { weight: 1, arbitrary: fc.integer({ min: 6, max: 30 }) },
    ),
  });
  const times = fc
    .sample(runArb, { numRuns: HISTORY, seed: SEED })
    .flatMap((r) => Array<number>(r.size).fill(r.ms))
    .slice(0, HISTORY);
  const rest = fc.sample(fc.tuple(attributesArb, fc.uuid()), { numRuns: HISTORY, seed: SEED + 1 });
  return times.map((ms, i) => ({
    ...eventAt(i, ms, rest[i]![0]),
    event_id: rest[i]![1] as TestEvent['event_id'],
  }));
}

const canonicalOf = (ip: string) => Object.keys(SPELLINGS).find((c) => SPELLINGS[c]!.includes(ip)) ?? ip;

/** What an event's filters see: its address in canonical text. */
function attributesOf(e: TestEvent): Attributes {
  const { action, resource_type, phi_involved, user_id, resource_id, success } = e;
  return {
    action,
    resource_type,
    phi_involved,
    user_id,
    resource_id,
    success,
    source_ip: canonicalOf(e.source_ip),
  };
}

/** A value of `field` that exactly one event of the history has. */
function single(field: 'user_id' | 'resource_id' | 'source_ip'): string[] {
  const counts = new Map<string, number>();
  for (const a of initial.map(attributesOf)) counts.set(a[field], (counts.get(a[field]) ?? 0) + 1);
  return [...counts]
    .filter(([, n]) => n === 1)
    .map(([value]) => value)
    .slice(0, 1);
}

const listedOf = (e: TestEvent): Listed => ({
  event_id: e.event_id,
  timestamp: e.timestamp,
  ...attributesOf(e),
});

const initial = history();
const historyTimes = [...new Set(initial.map((e) => Date.parse(e.timestamp)))];
/** Every event sent to the tenant, added before its batch is posted: what a read may return besides the service's. */
const sent = new Map<string, Listed>(initial.map((e) => [e.event_id, listedOf(e)]));
let exports = 0;

// Window bounds often fall exactly on a shared millisecond: since inclusive and until exclusive both matter there.
const boundArb = fc.oneof(
  fc.integer({ min: OLDEST - HOUR, max: NOW + HOUR }),
  fc.constantFrom(...historyTimes),
);
/** Mostly absent: a query combines a few filters, not all of them. */
const rarely = <T>(values: fc.Arbitrary<T>) =>
  weighted<T | undefined>([4, fc.constant(undefined)], [1, values]);
const queryArb = fc
  .record({
    action: fc.option(fc.constantFrom(...ACTIONS, 'audit.export'), { nil: undefined, freq: 2 }),
    resource_type: fc.option(fc.constantFrom(...TYPES, 'audit_export'), { nil: undefined, freq: 2 }),
    phi_involved: fc.option(fc.boolean(), { nil: undefined, freq: 2 }),
    // Values of most events, a few, exactly one, and none.
    user_id: rarely(fc.constantFrom('u-main', 'u-few', ...single('user_id'), 'u-nobody')),
    resource_id: rarely(
      fc.constantFrom('patient-1', 'patient-hot', ...single('resource_id'), 'patient-none'),
    ),
    success: rarely(fc.boolean()),
    source_ip: rarely(
      fc.constantFrom(
        ...SPELLINGS['10.0.0.1']!,
        ...SPELLINGS['2001:db8::1']!,
        ...single('source_ip'),
        '192.0.2.99',
      ),
    ),
    action_prefix: rarely(fc.constantFrom('phi.', 'phi.re', 'admin.', 'audit.', 'ph', 'zzz.')),
    since: fc.option(boundArb, { nil: undefined, freq: 2 }),
    until: fc.option(boundArb, { nil: undefined, freq: 2 }),
    limit: fc.constantFrom(1, 7, 100, 1000),
    format: fc.constantFrom('json', 'ndjson'),
  })
  .map(({ since, until, ...q }) => {
    const [lo, hi] =
      since !== undefined && until !== undefined && since > until ? [until, since] : [since, until];
    // Equal bounds become a window of exactly one millisecond.
    return { ...q, since: lo, until: hi !== undefined && hi === lo ? hi + 1 : hi };
  });
type Query = typeof queryArb extends fc.Arbitrary<infer Q> ? Q : never;

const filtersOf = (q: Query) => ({
  action: q.action,
  resource_type: q.resource_type,
  phi_involved: q.phi_involved,
  user_id: q.user_id,
  resource_id: q.resource_id,
  success: q.success,
  source_ip: q.source_ip,
  action_prefix: q.action_prefix,
  since: q.since === undefined ? undefined : new Date(q.since).toISOString(),
  until: q.until === undefined ? undefined : new Date(q.until).toISOString(),
});

const listQuery = (q: Query) =>
  Object.entries({ ...filtersOf(q), limit: q.limit })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

const fits = (q: Query, a: Attributes) =>
  (q.action === undefined || a.action === q.action) &&
  (q.resource_type === undefined || a.resource_type === q.resource_type) &&
  (q.phi_involved === undefined || a.phi_involved === q.phi_involved) &&
  (q.user_id === undefined || a.user_id === q.user_id) &&
  (q.resource_id === undefined || a.resource_id === q.resource_id) &&
  (q.success === undefined || a.success === q.success) &&
  (q.source_ip === undefined || a.source_ip === canonicalOf(q.source_ip)) &&
  (q.action_prefix === undefined || a.action.startsWith(q.action_prefix));

const matches = (q: Query) => (e: Listed) =>
  fits(q, e) &&
  (q.since === undefined || Date.parse(e.timestamp) >= q.since) &&
  (q.until === undefined || Date.parse(e.timestamp) < q.until);

/** Narrowed to the newest `limit` * MAX_PAGES matches and the rest of the oldest one's millisecond. */
function narrowed(q: Query, events: Listed[]): Query {
  const matching = events.filter(matches(q)).sort(newestFirst);
  if (matching.length <= q.limit * MAX_PAGES) return q;
  return { ...q, since: Date.parse(matching[q.limit * MAX_PAGES - 1]!.timestamp) };
}

type Returned = Listed & { tenant_id: string };

/** The API renders times with +00:00; the oracle compares ISO strings with Z. */
const normalized = (e: Returned): Returned => ({
  event_id: e.event_id,
  tenant_id: e.tenant_id,
  timestamp: new Date(e.timestamp).toISOString(),
  action: e.action,
  resource_type: e.resource_type,
  phi_involved: e.phi_involved,
  user_id: e.user_id,
  resource_id: e.resource_id,
  success: e.success,
  source_ip: e.source_ip,
});

const ids = (events: { event_id: string }[]) => events.map((e) => e.event_id);

async function listed(q: Query, get: Parameters<typeof pageThrough>[0] = gw.get): Promise<Returned[]> {
  return (await pageThrough(get, listQuery(q), key)).map((e) =>
    normalized(e as Page['events'][number] & Returned),
  );
}

async function exported(q: Query): Promise<Returned[]> {
  const res = await fetch(`${gw.url()}/api/v2/public/audit/export?format=${q.format}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(filtersOf(q)),
  });
  // text() rejects when the chunked transfer did not complete, so a clean-looking partial NDJSON cannot pass.
  const text = await res.text();
  expect(res.status, text).toBe(200);
  exports++;
  // Every set here stays far below the 10,000 cap: one call must return all of it.
  expect(res.headers.get('x-service-truncated')).toBe('false');
  if (q.format === 'ndjson') {
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => normalized(JSON.parse(line) as Returned));
  }
  const body = JSON.parse(text) as { events: Returned[]; count: number; truncated: boolean };
  expect(body.count).toBe(body.events.length);
  expect(body.truncated).toBe(false);
  return body.events.map(normalized);
}

/**
 * Waits until every sent event and every audit event the service wrote so far is queryable; then the oracle:
 * what was sent, plus the service's own events, after checking the store holds exactly these.
 */
async function settled(): Promise<Listed[]> {
  const expected = sent.size + 1 + exports;
  await waitFor(
    `${expected} events queryable`,
    async () => {
      const n = await countRows(ch, tenant);
      if (n > expected) throw new Error(`${n} rows, more than the ${expected} written`);
      return n === expected;
    },
    { intervalMs: 100 },
  );
  const stored = await storedEvents(ch, tenant);
  const service = stored.filter((e) => SERVICE_TYPES.includes(e.resource_type));
  expect(service).toHaveLength(1 + exports);
  const own = ids(stored.filter((e) => !SERVICE_TYPES.includes(e.resource_type))).sort();
  expect(own).toEqual([...sent.keys()].sort());
  return [...sent.values(), ...service];
}

/** The list paged to its end, then the export (its own audit.export arrives after both): both exactly the oracle. */
async function expectExactlyTheOracle(q: Query, oracle: Listed[]) {
  const expected = ids(oracle.filter(matches(q)).sort(newestFirst));
  expect(ids(await listed(q))).toEqual(expected);
  expect(ids(await exported(q))).toEqual(expected);
}

/**
 * What a read running while events arrive must still guarantee: only the tenant's known events matching the
 * filters, strictly in list order (so no duplicate), and every event that was queryable before the read began.
 */
function expectConsistent(what: string, returned: Returned[], q: Query, before: Listed[]) {
  const strays = returned.filter(
    (e) =>
      e.tenant_id !== tenant ||
      !(sent.has(e.event_id) || SERVICE_TYPES.includes(e.resource_type)) ||
      !matches(q)(e),
  );
  expect(strays, `${what}: unknown or outside the filters`).toEqual([]);
  const misplaced = returned
    .slice(1)
    .map((e, i) => [returned[i]!, e] as const)
    .filter(([prev, e]) => newestFirst(prev, e) >= 0)
    .map(([prev, e]) => `${prev.timestamp} ${prev.event_id} then ${e.timestamp} ${e.event_id}`);
  expect(misplaced, `${what}: out of order or repeated`).toEqual([]);
  const got = new Set(ids(returned));
  const missing = before.filter(matches(q)).filter((e) => !got.has(e.event_id));
  expect(missing, `${what}: events queryable before it began are missing`).toEqual([]);
}

/** Attributes matching the query where an ingested event can match it (never the service's own types). */
const fitting = (q: Query) =>
  attributesArb.map((a): Attributes => ({
    action: (ACTIONS as readonly string[]).includes(q.action ?? '')
      ? q.action!
      : (ACTIONS.find((action) => q.action_prefix !== undefined && action.startsWith(q.action_prefix)) ??
        a.action),
    resource_type: (TYPES as readonly string[]).includes(q.resource_type ?? '')
      ? q.resource_type!
      : a.resource_type,
    phi_involved: q.phi_involved ?? a.phi_involved,
    user_id: q.user_id ?? a.user_id,
    resource_id: q.resource_id ?? a.resource_id,
    success: q.success ?? a.success,
    source_ip: q.source_ip === undefined ? a.source_ip : canonicalOf(q.source_ip),
  }));

/**
 * Background events for a query: newer than everything, tied to a millisecond of the history, or anywhere in the
 * history; the history ones mostly inside the query's window and matching its filters, so they land among the
 * pages being read.
 */
function backgroundArb(q: Query) {
  const lo = Math.max(OLDEST, q.since ?? OLDEST);
  const hi = Math.min(NEWEST, (q.until ?? Infinity) - 1);
  const [from, to] = lo <= hi ? [lo, hi] : [OLDEST, NEWEST];
  const inside = fc.integer({ min: from, max: to });
  const ties = historyTimes.filter((t) => t >= from && t <= to);
  return fc.record({
    attributes: fc.oneof(attributesArb, fitting(q)),
    when: fc.oneof(
      fc.constant('now' as const),
      ties.length > 0 ? fc.constantFrom(...ties) : inside,
      inside,
      fc.integer({ min: OLDEST, max: NEWEST }),
    ),
  });
}

/** Ingests batches of 10 for the tenant until stopped. */
function backgroundIngest(q: Query, seed: number) {
  const arb = backgroundArb(q);
  let stopping = false;
  let firstBatch: string[] | undefined;
  const done = (async () => {
    for (let batch = 0; !stopping; batch++) {
      const now = Date.now();
      const events = fc
        .sample(arb, { numRuns: 10, seed: seed + batch })
        .map((b, i) => eventAt(sent.size + i, b.when === 'now' ? now : b.when, b.attributes));
      for (const e of events) sent.set(e.event_id, listedOf(e));
      const res = await ingest(ingestProc.url, names.ingestToken, events);
      if (res.status !== 202) throw new Error(`background ingest answered ${res.status}`);
      firstBatch ??= ids(events);
      // Paced, so a run adds hundreds of events rather than thousands and every set stays far below the cap.
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  // Awaited by stop(); until then a failure must not surface as an unhandled rejection.
  done.catch(() => undefined);
  return {
    firstBatch: () => firstBatch,
    async stop() {
      stopping = true;
      await done;
    },
  };
}

/**
 * How this test reads what counts as queryable. On the cluster tier a replica shows an insert's rows before the
 * other replica of its shard has them (the quorum is not yet met, the insert not yet acknowledged), and the
 * gateway may read the other one: so it reads as the projector's checks do, with sequential consistency, which
 * shows only acknowledged inserts (docs/operations.md "Exactly once on a cluster"). Nothing on one server.
 */
const acknowledgedOnly = async () => (await (guard ??= testGuard(ch))).readSettings;

/** True once every one of the events is in audit_events and the filter index, the tables reads use. */
async function queryable(eventIds: string[]): Promise<boolean> {
  const settings = await acknowledgedOnly();
  const result = await ch.query({
    query: `SELECT count() AS n FROM audit_events
      WHERE tenant_id = ${sqlValue(tenant)} AND event_id IN (${eventIds.map(sqlValue).join(', ')})`,
    format: 'JSONEachRow',
    clickhouse_settings: settings,
  });
  const [row] = await result.json<{ n: string }>();
  const indexed = await indexedEventIds(ch, tenant, 1, settings);
  return Number(row?.n) === eventIds.length && eventIds.every((id) => indexed.has(id));
}

/**
 * Pages through `q`; before each of the first few follow-up pages, events tied to the cursor's millisecond and
 * matching the filters are ingested and waited for. Those ordered after the cursor (smaller id) existed when the
 * next page was asked for, so paging must return them; the others lie before the cursor and must not come back.
 */
async function pagedWithTiesAtTheCursor(q: Query, tieAttributes: Attributes | undefined) {
  const after: string[] = [];
  const before: string[] = [];
  let cursorEvent: Returned | undefined;
  let boundaries = 0;
  const get: Parameters<typeof pageThrough>[0] = async (path, k) => {
    if (cursorEvent && tieAttributes && boundaries++ < TIED_BOUNDARIES) {
      const at = Date.parse(cursorEvent.timestamp);
      const ties = Array.from({ length: 6 }, (_, i) => eventAt(sent.size + i, at, tieAttributes));
      for (const e of ties) sent.set(e.event_id, listedOf(e));
      expect((await ingest(ingestProc.url, names.ingestToken, ties)).status).toBe(202);
      await waitFor('ties queryable', () => queryable(ids(ties)), { intervalMs: 50 });
      for (const e of ties) (e.event_id < cursorEvent.event_id ? after : before).push(e.event_id);
    }
    const res = await gw.get(path, k);
    if (res.status === 200) cursorEvent = (JSON.parse(res.text) as { events: Returned[] }).events.at(-1);
    return res;
  };
  const pages = await listed(q, get);
  const got = new Set(ids(pages));
  expect(
    after.filter((id) => !got.has(id)),
    'ties after the cursor, skipped',
  ).toEqual([]);
  expect(
    before.filter((id) => got.has(id)),
    'ties before the cursor, returned',
  ).toEqual([]);
  return pages;
}

beforeAll(async () => {
  key = await gw.mint(tenant, 'audit:read,audit:export');
  const mirrored = initial.map((e) => ({ ...e, tenant_id: otherTenant, event_id: randomUUID() }));
  for (const events of [initial, mirrored]) {
    for (let i = 0; i < events.length; i += 1000) {
      expect((await ingest(ingestProc.url, names.ingestToken, events.slice(i, i + 1000))).status).toBe(202);
    }
  }
  await waitFor('the other tenant queryable', async () => (await countRows(ch, otherTenant)) === HISTORY);
  await settled();
});

describe('paging against the export', () => {
  it('returns exactly the export and the oracle, in order, for any filters and limit', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, async (q) => {
        const oracle = await settled();
        await expectExactlyTheOracle(narrowed(q, oracle), oracle);
      }),
      { numRuns: byVolume(24, 8), seed: SEED },
    );
  });

  it('while events are ingested: no duplicate, strict order, nothing lost; exact again once ingestion stops', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, fc.integer({ min: 1, max: 1_000_000 }), async (query, batchSeed) => {
        const background = backgroundIngest(query, batchSeed);
        let q = query;
        try {
          await waitFor('background ingestion under way', async () => {
            const first = background.firstBatch();
            return first !== undefined && (await queryable(first));
          });
          const stored = await storedEvents(ch, tenant, await acknowledgedOnly());
          const indexed = await indexedEventIds(ch, tenant, 1, await acknowledgedOnly());
          const before = stored.filter((e) => indexed.has(e.event_id));
          q = narrowed(query, before);
          const [tieAttributes] = fc.sample(fitting(q), { numRuns: 1, seed: batchSeed });
          const [pages, snapshot] = await Promise.all([
            pagedWithTiesAtTheCursor(q, fits(q, tieAttributes!) ? tieAttributes : undefined),
            exported(q),
          ]);
          expectConsistent('paging', pages, q, before);
          expectConsistent('export', snapshot, q, before);
        } finally {
          await background.stop();
        }
        await expectExactlyTheOracle(q, await settled());
      }),
      { numRuns: byVolume(8, 3), seed: SEED + 1 },
    );
  });
});
