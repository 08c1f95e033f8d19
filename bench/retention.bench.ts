// npm run bench:retention — `ops retention purge` of a tenant's events past its maximum, on a tenant with 2 million
// events over six years: its rate against the bare deletes of the same rows on copies of the tables (the floor), and
// what it costs steady ingest and list pages running beside it, against the same load idle, in the same run.
import { loadavg } from 'node:os';
import { allTopics, topics } from '@audit/shared/contract';
import { migrateClickHouse } from '@audit/shared/migrations';
import {
  createClickHouse,
  ensureTopics,
  sqlIdentifier,
  sqlValue,
  type ClickHouseClient,
} from '@audit/shared/platform';
import { projectionTables } from '@audit/shared/projection';
import { purgeCondition, purgeHorizon, settleBuckets, type PurgeScope } from '@audit/shared/retention';
import { uniqueNames } from '../test/support/names.js';
import { mintKey, opsCli } from '../test/support/ops-cli.js';
import { migratedPostgres } from '../test/support/postgres.js';
import {
  cleanUp,
  clickhouseSettings,
  gatewayService,
  ingestService,
  projectorService,
  testKafka,
} from '../test/support/stack.js';
import { httpClient, type HttpClient } from './lib/http-timing.js';
import { settleMerges } from './lib/export-dataset.js';
import { benchResults, goal } from './lib/results.js';
import {
  bareDelete,
  copyTables,
  countOf,
  HELD_USER,
  HISTORY_MS,
  indexDrift,
  LIST_ACTION,
  loadHistory,
  YEAR_MS,
  type PurgedTables,
} from './lib/retention-dataset.js';
import { fmt } from './lib/stats.js';
import { listLoop, steadyIngest, type IngestStats, type ListStats } from './lib/steady-load.js';

const EVENTS = Number(process.env.BENCH_RETENTION_EVENTS ?? 2_000_000);
/** How long the idle phase's load runs; the others run as long as their deletes. */
const IDLE_S = Number(process.env.BENCH_RETENTION_IDLE_S ?? 45);
const RATE_PER_S = 2000;
const PER_REQUEST = 100;
const DAY_MS = 86_400_000;
/** Three years and a day: about half of the six years is past it. */
const MAX_DAYS = 1096;
const MIN_DAYS = 30;
/** The held window: 60 days, five years back. */
const HOLD_DAYS = 60;
const PEPPER = 'bench-pepper-0123456789abcdef0123456789';
const CURSOR_SECRET = 'bench-cursor-0123456789abcdef0123456789';
const API = '/api/v2/public';
/** The dataset's events, without those the operator's changes wrote into the tenant's trail. */
const DATASET_ONLY = `resource_type NOT IN ('retention_purge', 'retention_policy', 'legal_hold', 'api_key')`;

const names = uniqueNames('benchretention');
const floorDatabase = `${names.database}_floor`;
const settings = clickhouseSettings(names);
const kafka = testKafka();
const topicSet = topics(names.topicPrefix, 1);
const PURGED = `${names.tenant}-purged`;
const LIVE = `${names.tenant}-live`;
const tables: PurgedTables = projectionTables(1);
const results = benchResults('retention', ['BENCH_RETENTION_EVENTS', 'BENCH_RETENTION_IDLE_S']);

const ms = (n: number) => fmt(n, 1);
const ratio = (during: number, idle: number) => `×${(during / idle).toFixed(2)}`;
const day = (t: number) => new Date(t).toISOString().slice(0, 10);

interface Phase {
  name: string;
  seconds: number;
  ingest: IngestStats;
  list: ListStats;
}

/** The load (ingest at RATE_PER_S of LIVE, list pages of PURGED) while `work` runs, and what it measured. */
async function phase<T>(
  name: string,
  load: { ingest: () => ReturnType<typeof steadyIngest>; list: () => ReturnType<typeof listLoop> },
  work: () => Promise<T>,
): Promise<{ phase: Phase; result: T }> {
  const ingest = load.ingest();
  const list = load.list();
  const started = performance.now();
  let outcome: { ok: true; result: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, result: await work() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const seconds = (performance.now() - started) / 1000;
  // Stopped either way: a failed phase leaves no request running.
  const [listStats, ingestStats] = await Promise.all([list.stop(), ingest.stop()]);
  if (!outcome.ok) throw outcome.error;
  const p: Phase = { name, seconds, ingest: ingestStats, list: listStats };
  const i = p.ingest;
  results.detail(
    `ingest at ${fmt(RATE_PER_S)} events/s, ${name}`,
    `${fmt(i.sent)} events in ${fmt(seconds, 1)} s; acknowledged at ${fmt(i.acked)}/s, visible at ${fmt(i.visibleRate)}/s; request p50 ${ms(i.ack.p50)}, p99 ${ms(i.ack.p99)} ms; sent → visible p50 ${ms(i.visible.p50)}, p99 ${ms(i.visible.p99)} ms; ${i.errors} errors`,
  );
  for (const c of p.list.cases) {
    results.detail(
      `list ${c.name}, ${name}`,
      `${fmt(c.s.n)} pages; p50 ${ms(c.s.p50)}, p99 ${ms(c.s.p99)}, max ${ms(c.s.max)} ms`,
    );
  }
  if (p.list.errors > 0) results.detail(`list errors, ${name}`, String(p.list.errors));
  return { phase: p, result: outcome.result };
}

async function storage(ch: ClickHouseClient) {
  const parts = await (
    await ch.query({
      query: `SELECT table, count() AS parts, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts
        WHERE database = ${sqlValue(names.database)} AND active
          AND table IN (${[tables.events, tables.index, tables.buckets].map(sqlValue).join(', ')})
        GROUP BY table ORDER BY table`,
      format: 'JSONEachRow',
    })
  ).json<{ table: string; parts: string; rows: string; bytes: string }>();
  return parts
    .map(
      (p) =>
        `${p.table} ${fmt(Number(p.rows))} rows in ${p.parts} parts, ${fmt(Number(p.bytes) / 2 ** 20)} MiB`,
    )
    .join('; ');
}

/** The ratio rows: the purge's and the floor's load against the idle phase's. */
function compare(idle: Phase, during: Phase, what: string, row: typeof results.row) {
  const [a, b] = [idle.ingest, during.ingest];
  row(
    `ingest at ${fmt(RATE_PER_S)} events/s during ${what}, ratio to idle`,
    `visible rate ${ratio(b.visibleRate, a.visibleRate)} (${fmt(b.visibleRate)} against ${fmt(a.visibleRate)} events/s); sent → visible p99 ${ratio(b.visible.p99, a.visible.p99)} (${ms(b.visible.p99)} against ${ms(a.visible.p99)} ms); request p99 ${ratio(b.ack.p99, a.ack.p99)} (${ms(b.ack.p99)} against ${ms(a.ack.p99)} ms)`,
  );
  for (const [k, c] of during.list.cases.entries()) {
    const base = idle.list.cases[k]!;
    row(
      `list ${c.name} during ${what}, p99 ratio to idle`,
      `${ratio(c.s.p99, base.s.p99)} (${ms(c.s.p99)} against ${ms(base.s.p99)} ms; p50 ${ms(c.s.p50)} against ${ms(base.s.p50)} ms)`,
    );
  }
}

function loadPoints(phases: Phase[]) {
  const point = (label: string, of: (p: Phase) => number) =>
    results.point(
      'retention-load',
      label,
      Object.fromEntries(phases.map((p) => [p.name, Math.round(of(p) * 10) / 10])),
    );
  point('ingest, sent → visible', (p) => p.ingest.visible.p99);
  point('ingest, request', (p) => p.ingest.ack.p99);
  for (const [k, c] of phases[0]!.list.cases.entries())
    point(`list ${c.name}`, (p) => p.list.cases[k]!.s.p99);
}

async function main() {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`bench:retention on ${names.id} at ${new Date().toISOString()}; load average ${load()}`);
  await migrateClickHouse(settings);
  await ensureTopics(kafka, allTopics(topicSet), 1);
  const postgres = await migratedPostgres(names);
  const ops = opsCli(names, () => postgres.url, { OPERATOR_ID: 'operator:bench' });
  const cli = async <T = Record<string, unknown>>(...argv: string[]) => {
    const res = await ops([...argv, '--json']);
    if (res.code !== 0) throw new Error(`ops ${argv.join(' ')} exited with ${res.code}: ${res.err}`);
    return res.json<T>();
  };
  // Statements of minutes: the load's inserts, the copies and the floor's deletes.
  const ch = createClickHouse(settings, settings.database, 3_600_000);
  const floorCh = createClickHouse(settings, floorDatabase, 3_600_000);
  const ingest = ingestService(names, { LOG_LEVEL: 'warn' });
  const projector = projectorService(names, { DATABASE_URL: postgres.url, LOG_LEVEL: 'warn' });
  const gateway = gatewayService(names, {
    DATABASE_URL: postgres.url,
    API_KEY_PEPPER: PEPPER,
    CURSOR_SECRET,
    RATE_LIMIT_READ_PER_MIN: '100000000',
    LOG_LEVEL: 'warn',
  });
  let http: HttpClient | undefined;
  try {
    // 1. The dataset, its policy and holds, and the copies the floor deletes from.
    const endMs = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
    const loaded = await loadHistory(ch, PURGED, EVENTS, endMs, console.log);
    await settleMerges(ch, names.database);
    const stored = await countOf(ch, tables.events, `tenant_id = ${sqlValue(PURGED)}`);
    if (stored !== EVENTS) throw new Error(`${stored} events stored, not ${EVENTS}`);
    const holdSince = endMs - 5 * YEAR_MS;
    const holdUntil = holdSince + HOLD_DAYS * DAY_MS;
    await cli(
      'retention',
      'set',
      '--tenant',
      PURGED,
      '--min-days',
      String(MIN_DAYS),
      '--max-days',
      String(MAX_DAYS),
    );
    await cli('holds', 'create', '--tenant', PURGED, '--reason', 'bench matter 1', '--user-id', HELD_USER);
    await cli(
      'holds',
      'create',
      '--tenant',
      PURGED,
      '--reason',
      'bench matter 2',
      '--since',
      new Date(holdSince).toISOString(),
      '--until',
      new Date(holdUntil).toISOString(),
    );
    const dry = await cli<{ purged: number; kept: number; purged_before: string }>(
      'retention',
      'purge',
      '--tenant',
      PURGED,
      '--dry-run',
    );
    console.log(`dry run: ${JSON.stringify(dry)}`);
    const copyStarted = performance.now();
    await copyTables(ch, names.database, floorDatabase, tables);
    await settleMerges(ch, names.database);
    await settleMerges(ch, floorDatabase);
    const before = await storage(ch);
    results.row(
      'dataset',
      `${fmt(EVENTS)} events of one tenant, evenly over six years (${day(endMs - HISTORY_MS)} to ${day(endMs)}), loaded in ${fmt(loaded)} s with INSERT … SELECT through the projection's views; max_days ${MAX_DAYS} puts ${fmt(dry.purged + dry.kept)} past the horizon, of which 2 holds keep ${fmt(dry.kept)}; ${before}; copied for the floor in ${fmt((performance.now() - copyStarted) / 1000)} s`,
    );

    // 2. The services, and the load.
    await ingest.start();
    await projector.start();
    await gateway.start();
    const key = await mintKey({
      databaseUrl: postgres.url,
      topicPrefix: names.topicPrefix,
      pepper: PEPPER,
      tenant: PURGED,
      scopes: 'audit:read',
    });
    const auth = { authorization: `Bearer ${key}` };
    http = httpClient(gateway.url);
    const client = http;
    const listCases = [
      { name: 'no filter, limit 100, first page', path: `${API}/audit/events?limit=100` },
      {
        name: `action=${LIST_ACTION} (10 %), limit 100, first page`,
        path: `${API}/audit/events?limit=100&action=${LIST_ACTION}`,
      },
    ];
    const loadOf = {
      ingest: () =>
        steadyIngest({
          url: `${ingest.url}/internal/v1/events`,
          token: names.ingestToken,
          tenant: LIVE,
          ratePerS: RATE_PER_S,
          perRequest: PER_REQUEST,
          ch,
        }),
      list: () => listLoop(client, auth, listCases),
    };
    const sleepFor = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));
    // Warm-up: connections, the gateway's JIT, the first parts of the live tenant.
    const warm = [loadOf.ingest(), loadOf.list()];
    await sleepFor(5);
    await Promise.all(warm.map((w) => w.stop()));

    // 3. Idle: the load alone.
    const idle = (await phase('idle', loadOf, () => sleepFor(IDLE_S))).phase;

    // 4. The floor: the same rows deleted from the copies with bare mutations, and their summary settled.
    const horizon = Date.parse(dry.purged_before);
    if (purgeHorizon({ max_days: MAX_DAYS }, Date.now()) !== horizon) console.log('  (the hour turned)');
    const scope: PurgeScope = {
      purgedBefore: horizon,
      holds: [{ user_id: HELD_USER }, { since: holdSince, until: holdUntil }],
    };
    const where = purgeCondition(PURGED, scope);
    const floorRows = await countOf(floorCh, tables.events, where);
    const floor = await phase('during the floor', loadOf, async () => {
      const events = await bareDelete(floorCh, tables.events, where);
      const index = await bareDelete(floorCh, tables.index, where);
      const t = performance.now();
      await settleBuckets(floorCh, tables, PURGED, horizon);
      return { events, index, summary: (performance.now() - t) / 1000 };
    });
    const floorRate = floorRows / floor.phase.seconds;
    const f = floor.result;
    results.row(
      'floor: the bare deletes of the same rows on copies',
      `${fmt(floorRate)} events/s: ${fmt(floorRows)} events in ${fmt(floor.phase.seconds, 1)} s (ALTER TABLE … DELETE of the events ${fmt(f.events, 1)} s, of the filter index ${fmt(f.index, 1)} s; the summary's settling insert ${fmt(f.summary, 1)} s)`,
    );

    // 5. The purge, through the operator command, with the same load.
    const purgeStartedAt = Date.now();
    const purge = await phase('during the purge', loadOf, async () => {
      const res = await ops(['retention', 'purge', '--tenant', PURGED, '--json']);
      if (res.code !== 0) throw new Error(`ops retention purge exited with ${res.code}: ${res.err}`);
      return res.json<{ purged: number; kept: number; purged_before: string; purge_id: string }>();
    });
    const report = purge.result;
    const purgeRate = report.purged / purge.phase.seconds;
    results.row(
      'purge (ops retention purge, in-process)',
      `${fmt(purgeRate)} events/s: ${fmt(report.purged)} events in ${fmt(purge.phase.seconds, 1)} s (${fmt((100 * purgeRate) / floorRate)} % of the floor's rate), ${fmt(report.kept)} kept by the holds; horizon ${report.purged_before}`,
    );
    results.point('retention-rate', 'floor: bare deletes on copies', { 'events/s': Math.round(floorRate) });
    results.point('retention-rate', 'ops retention purge', { 'events/s': Math.round(purgeRate) });
    compare(idle, purge.phase, 'the purge', results.row);
    compare(idle, floor.phase, 'the floor', results.detail);
    loadPoints([idle, floor.phase, purge.phase]);

    // 6. What the purge left: nothing it should have removed, the rest, and a filter index and summary that are
    // what the remaining events make.
    const left = await countOf(
      ch,
      tables.events,
      purgeCondition(PURGED, { ...scope, purgedBefore: Date.parse(report.purged_before) }),
    );
    const under = await countOf(
      ch,
      tables.events,
      `tenant_id = ${sqlValue(PURGED)} AND ts < ${sqlValue(Date.parse(report.purged_before))}`,
    );
    const total = await countOf(ch, tables.events, `tenant_id = ${sqlValue(PURGED)} AND ${DATASET_ONLY}`);
    const drift = await indexDrift(ch, tables, PURGED);
    const floorDrift = await indexDrift(floorCh, tables, PURGED);
    // Against the run's own horizon: the hour may have turned since the dry run.
    const exact = left === 0 && under === report.kept && EVENTS - total === report.purged;
    const indexExact = drift.extraIndexRows + drift.lackingIndexRows + drift.summaryCountsOff === 0;
    results.row(
      'after the purge',
      `${fmt(left)} events left that it should have removed, ${fmt(under)} under the horizon, ${fmt(EVENTS - total)} gone (the dry run said ${fmt(dry.kept)} kept, ${fmt(dry.purged)} purged); filter index: ${fmt(drift.extraIndexRows)} rows too many, ${fmt(drift.lackingIndexRows)} lacking; summary: ${fmt(drift.summaryCountsOff)} counts off (${fmt(drift.summaryCountsAbove)} above their events); the floor's copies: ${fmt(floorDrift.summaryCountsOff)} counts off; ${await storage(ch)}`,
      goal(
        'exactly the events past the horizon that no hold covers removed, index and summary exact',
        exact && indexExact,
      ),
    );
    const mutations = await (
      await ch.query({
        query: `SELECT table, toUnixTimestamp(create_time) AS at FROM system.mutations
          WHERE database = currentDatabase() ORDER BY create_time, table`,
        format: 'JSONEachRow',
      })
    ).json<{ table: string; at: number }>();
    console.log(
      `  the purge's mutations, seconds after it began: ${mutations.map((m) => `${m.table} ${Number(m.at) - Math.floor(purgeStartedAt / 1000)}`).join(', ')}; it ended at ${fmt(purge.phase.seconds, 1)}`,
    );
  } finally {
    http?.close();
    await gateway.stop();
    await projector.stop();
    await ingest.stop();
    await floorCh
      .command({ query: `DROP DATABASE IF EXISTS ${sqlIdentifier(floorDatabase)}` })
      .catch(() => {});
    await floorCh.close();
    await ch.close();
    await postgres.drop();
    await cleanUp(names, [names.groupId]);
  }
  results.save([
    `${fmt(EVENTS)} events of the purged tenant, generated in ClickHouse (the dataset is made and dropped by each run: the purge removes half of it); a policy of max_days ${MAX_DAYS} (min_days ${MIN_DAYS}) and two holds, one on a user of about 1 % of the events, one on ${HOLD_DAYS} days five years back.`,
    `Load in every phase: ingest of another tenant at ${fmt(RATE_PER_S)} events/s (${PER_REQUEST} per request, on a fixed schedule, the first event of each request looked for every 50 ms), and list pages of the purged tenant one after the other, the two cases in turn; idle for ${IDLE_S} s, then while the floor's deletes run, then while the purge runs. Ratios compare each phase with the idle one of the same run.`,
    "The floor: the least work the purge needs, on copies of the events table, filter index and summary: ALTER TABLE … DELETE of the same rows in each (waited for, polled every 50 ms) and the summary settled with the purge's own insert; without the audit event, the retention lock, the 3 s wait for the projector to see the horizon, the counts before and after, and the check that no event came back.",
    'Not measured yet: the erasure of personal values (in docs/retention.md under Not built yet), which is not built; its half of this bench comes with it.',
  ]);
}

await main();
