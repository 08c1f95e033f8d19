// npm run bench:read — list, lookup and export through a real gateway process, on a tenant with 10 million events
// among 20 million, each beside the same SQL sent straight to ClickHouse; and what auth and rate limiting add.
import { loadavg } from 'node:os';
import {
  createClickHouse,
  sqlValue,
  type ClickHouseClient,
  type ClickHouseSettings,
} from '@audit/shared/platform';
import { projectionTables, type EventFilters } from '@audit/shared/projection';
import { readReportEvents } from '@audit/shared/reports';
import { eventsReader, type EventsReader } from '../services/gateway/src/adapters/events.reader.js';
import type { PagePosition } from '../services/gateway/src/domain/cursor.js';
import { parseListQuery } from '../services/gateway/src/domain/list-query.js';
import { CLICKHOUSE_URL } from '../test/support/stack.js';
import {
  ensureDataset,
  FILTER_VALUES,
  REPORT_PATIENT,
  REPORT_ROWS,
  TARGET_TENANT,
  type Dataset,
} from './lib/bulk-load.js';
import { CURSOR_SECRET, datasetGateway, PEPPER, UNLIMITED } from './lib/dataset-gateway.js';
import { gatewayOverhead } from './lib/gateway-overhead.js';
import { httpClient, type HttpClient, type Timed } from './lib/http-timing.js';
import { rssSampler } from './lib/process-rss.js';
import { captureQueries, labelledClient, labelStats } from './lib/query-log.js';
import { benchResults, goal } from './lib/results.js';
import { fmt, summarize } from './lib/stats.js';

// The bench's dataset is loaded into the first generation's tables.
const FIRST_GENERATION = async () => ({ ...projectionTables(1), indexed: true });

const EVENTS = Number(process.env.BENCH_READ_EVENTS ?? 20_000_000);
const SAMPLES = Number(process.env.BENCH_READ_SAMPLES ?? 200);
const EXPORTS = Number(process.env.BENCH_READ_EXPORTS ?? 10);
// Which measurements to run (all by default), e.g. BENCH_READ_PARTS=exports after a change to the export alone.
const PARTS = (process.env.BENCH_READ_PARTS ?? 'lists,lookups,exports,concurrent,overhead,reports').split(
  ',',
);
// Exports at once by the bench's one tenant: its share of the gateway's bound, which the concurrent part fills and
// passes.
const CONCURRENT_EXPORTS = 8;
const RELOAD = process.argv.includes('--reload') || process.env.BENCH_READ_RELOAD === '1';
const WARMUP = 10;
const DEEP_PAGE = 100;
const LIST_GOAL_MS = 50;
const EXPORT_GOAL_MS = 500;
/** The patient access report of REPORT_PATIENT, per format: its goal (p99, ms) and how many samples. */
const REPORT_FORMATS = [
  { format: 'json', goalMs: 300, samples: SAMPLES },
  { format: 'csv', goalMs: 500, samples: SAMPLES },
  { format: 'pdf', goalMs: 2000, samples: Math.ceil(SAMPLES / 4) },
] as const;
const API = '/api/v2/public';

const settings: ClickHouseSettings = {
  url: CLICKHOUSE_URL,
  database: process.env.BENCH_READ_DATABASE ?? 'bench_read',
  user: 'default',
  password: '',
};

const results = benchResults('read', ['BENCH_READ_PARTS', 'BENCH_READ_EVENTS']);
const ms = (n: number) => fmt(n, 1);
type Summary = ReturnType<typeof summarize>;
const timing = (s: Summary) => `p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)} ms`;
/** A chart's point of p50 and p99 in ms, to a tenth as the rows give them. */
const latencyPoint = (chart: string, label: string, s: Summary) =>
  results.point(chart, label, { p50: Math.round(s.p50 * 10) / 10, p99: Math.round(s.p99 * 10) / 10 });

interface ListCase {
  name: string;
  query: Record<string, string>;
  filters: EventFilters;
}

interface Page {
  events: { event_id: string; timestamp: string }[];
  page: { returned: number; next_cursor: string | null; has_more: boolean };
}

/** A weekday office hour in the dense weeks: a narrow window, at the data's usual density. */
function officeHour(dataset: Dataset): { since: number; until: number } {
  const day = new Date(dataset.endMs - 20 * 7 * 86_400_000);
  while (day.getUTCDay() !== 3) day.setUTCDate(day.getUTCDate() + 1);
  const since = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 14);
  return { since, until: since + 3_600_000 };
}

function listCase(name: string, query: Record<string, string>): ListCase {
  const parsed = parseListQuery(query);
  if (!parsed.ok) throw new Error(`${name}: ${JSON.stringify(parsed.errors)}`);
  return { name, query, filters: parsed.query.filters };
}

/** No filter, each filter at each of its shares (FILTER_VALUES), two combined filters, and a one-hour window. */
function listCases(dataset: Dataset): ListCase[] {
  const window = officeHour(dataset);
  const v = FILTER_VALUES;
  return [
    listCase('no filter', {}),
    ...Object.entries(FILTER_VALUES).flatMap(([field, values]) =>
      Object.entries(values).map(([share, value]) =>
        listCase(`${field}=${value} (${share})`, { [field]: value }),
      ),
    ),
    listCase('source_ip=::ffff:10.0.0.1 (10 %)', { source_ip: '::ffff:10.0.0.1' }),
    listCase(`action=${v.action['45 %']} & user_id=${v.user_id['10 %']} (4.5 %)`, {
      action: v.action['45 %'],
      user_id: v.user_id['10 %'],
    }),
    listCase(`success=false & source_ip=${v.source_ip['10 %']} (0.15 %)`, {
      success: 'false',
      source_ip: v.source_ip['10 %'],
    }),
    listCase('since/until: 1 h', {
      since: new Date(window.since).toISOString(),
      until: new Date(window.until).toISOString(),
    }),
  ];
}

async function describeData(ch: ClickHouseClient, dataset: Dataset) {
  const parts = await (
    await ch.query({
      query: `SELECT table, count() AS parts, sum(rows) AS rows, sum(bytes_on_disk) AS bytes,
          sum(data_compressed_bytes) AS compressed FROM system.parts
        WHERE database = ${sqlValue(settings.database)} AND active GROUP BY table ORDER BY table`,
      format: 'JSONEachRow',
    })
  ).json<{ table: string; parts: string; rows: string; bytes: string; compressed: string }>();
  for (const p of parts) {
    results.detail(
      `storage of ${p.table}`,
      `${fmt(Number(p.rows))} rows in ${p.parts} parts, ${fmt(Number(p.bytes) / 2 ** 20)} MiB on disk, ${fmt(Number(p.compressed) / 2 ** 20 / (dataset.events / 1e6), 1)} MiB compressed per million events`,
    );
  }
  console.log(`  the data ends ${fmt((Date.now() - dataset.endMs) / 3_600_000, 1)} h before now`);
}

interface Bench {
  get(path: string): Promise<Timed>;
  http: HttpClient;
  auth: Record<string, string>;
  reader: EventsReader;
  labelled: ReturnType<typeof labelledClient>;
  ch: ClickHouseClient;
  gatewayPid: number;
}

/** The cursor and position of page 100, or of the last page when there are fewer. */
async function deepPage(b: Bench, query: (cursor: string | null) => string) {
  let body = JSON.parse((await b.get(query(null))).body) as Page;
  let page = 1;
  let cursor: string | null = null;
  let position: PagePosition | null = null;
  while (page < DEEP_PAGE && body.page.has_more) {
    const last = body.events.at(-1)!;
    cursor = body.page.next_cursor;
    position = { ts: Date.parse(last.timestamp), id: last.event_id };
    page++;
    if (page < DEEP_PAGE) body = JSON.parse((await b.get(query(cursor))).body) as Page;
  }
  return { page, cursor, position };
}

interface Depth {
  page: number;
  cursor: string | null;
  position: PagePosition | null;
}

/** The case's list path at `limit`, from `cursor` on. */
const listPath = (listCase: ListCase, limit: number) => (cursor: string | null) =>
  `/audit/events?${new URLSearchParams({ ...listCase.query, limit: String(limit), ...(cursor ? { cursor } : {}) })}`;

/** SAMPLES pages of one case, limit and depth after WARMUP, each through the gateway and as its SQL straight. */
async function sampleList(b: Bench, listCase: ListCase, limit: number, depth: Depth, label: string) {
  const query = listPath(listCase, limit);
  const gw: number[] = [];
  const direct: number[] = [];
  let returned = 0;
  for (let i = -WARMUP; i < SAMPLES; i++) {
    b.labelled.label(i < 0 ? 'warm' : label);
    const res = await b.get(query(depth.cursor));
    const t = performance.now();
    const rows = await b.reader.listPage(
      TARGET_TENANT,
      listCase.filters,
      depth.position,
      limit + 1,
      Date.now(),
    );
    const took = performance.now() - t;
    if (i < 0) continue;
    gw.push(res.totalMs);
    direct.push(took);
    if (i === 0) {
      returned = (JSON.parse(res.body) as Page).page.returned;
      if (returned !== Math.min(rows.length, limit)) throw new Error(`${label}: gateway and SQL disagree`);
    }
  }
  return { gw: summarize(gw), direct: summarize(direct), returned };
}

/**
 * One row for many cases, the results page's: the range of their p99 and the case at each end, against the goal
 * each case is held to (every case has its own row among the details).
 */
function everyCase(measure: string, cases: { name: string; s: Summary }[], goalMs: number) {
  if (cases.length === 0) return;
  const byP99 = [...cases].sort((a, b) => a.s.p99 - b.s.p99);
  const [fastest, slowest] = [byP99[0]!, byP99.at(-1)!];
  results.row(
    `${measure}, every case (${cases.length})`,
    `p99 from ${ms(fastest.s.p99)} ms (${fastest.name}) to ${ms(slowest.s.p99)} ms (${slowest.name}); p50 at most ${ms(Math.max(...cases.map((c) => c.s.p50)))} ms`,
    goal(`p99 ≤ ${goalMs} ms in each`, slowest.s.p99 <= goalMs),
  );
}

const pageName = (page: number) =>
  page === 1 ? 'first page' : page === DEEP_PAGE ? 'page 100' : `page ${page} (last)`;

/**
 * Every case's first page and page 100 (limit 100, and 1000 without a filter), timed first; then the queries and
 * rows each read, from ClickHouse's query log once it holds them all.
 */
async function measureLists(b: Bench, dataset: Dataset) {
  const measured: {
    name: string;
    label: string;
    measure: string;
    timings: string;
    limit: number;
    page: number;
    gw: Summary;
    returned: number;
  }[] = [];
  for (const [c, listCase] of listCases(dataset).entries()) {
    // Limit 1000 only without a filter: the filtered cases are about where the rows come from, not how many.
    for (const limit of c === 0 ? [100, 1000] : [100]) {
      const deep = await deepPage(b, listPath(listCase, limit));
      const depths: Depth[] = [{ page: 1, cursor: null, position: null }, ...(deep.page > 1 ? [deep] : [])];
      for (const depth of depths) {
        const label = `L${c}x${limit}x${depth.page}`;
        const { gw, direct, returned } = await sampleList(b, listCase, limit, depth, label);
        const measure = `list ${listCase.name}, limit ${limit}, ${pageName(depth.page)}`;
        const timings = `${fmt(returned)} rows; gateway ${timing(gw)} (SQL ${timing(direct)})`;
        console.log(`${measure}: ${timings}`);
        measured.push({
          name: listCase.name,
          label,
          measure,
          timings,
          limit,
          page: depth.page,
          gw,
          returned,
        });
        if (limit === 100 && depth.page === 1) latencyPoint('list-latency', listCase.name, gw);
      }
    }
  }
  const stats = await labelStats(b.ch, b.labelled.run);
  for (const { label, measure, timings, limit, gw, returned } of measured) {
    const s = stats.get(label)!;
    const perPage = s.readRows / SAMPLES;
    const detail = limit === 100 ? results.detail : results.row;
    detail(
      measure,
      `${timings}; ${fmt(s.queries / SAMPLES, 1)} queries, ${fmt(perPage)} rows read per page (${returned > 0 ? `${fmt(perPage / returned, 1)}×` : 'none'} returned)`,
      limit === 100 ? goal(`p99 ≤ ${LIST_GOAL_MS} ms`, gw.p99 <= LIST_GOAL_MS) : undefined,
    );
  }
  const at100 = measured.filter((m) => m.limit === 100);
  const cases = (first: boolean) =>
    at100.filter((m) => (m.page === 1) === first).map((m) => ({ name: m.name, s: m.gw }));
  everyCase('list, limit 100, first page', cases(true), LIST_GOAL_MS);
  everyCase('list, limit 100, page 100 (or the last)', cases(false), LIST_GOAL_MS);
}

/** Random existing ids: the by-id table is ordered by the id's hash, so a range of hashes is a random draw. */
async function measureLookups(b: Bench) {
  const wanted = SAMPLES + WARMUP;
  const hashes = ((2n ** 64n / BigInt(EVENTS / 2)) * BigInt(wanted) * 2n).toString();
  const result = await b.ch.query({
    query: `SELECT event_id FROM audit_event_ids
      WHERE tenant_id = ${sqlValue(TARGET_TENANT)} AND id_hash < ${hashes} LIMIT ${wanted}`,
    format: 'JSONEachRow',
  });
  const ids = (await result.json<{ event_id: string }>()).map((r) => r.event_id);
  const gw: number[] = [];
  const direct: number[] = [];
  for (const [i, id] of ids.entries()) {
    b.labelled.label(i < WARMUP ? 'warm' : 'lookup');
    const res = await b.get(`/audit/events/${id}`);
    const t = performance.now();
    if (!(await b.reader.findEvent(TARGET_TENANT, id))) throw new Error(`lookup: ${id} not found`);
    if (i < WARMUP) continue;
    direct.push(performance.now() - t);
    gw.push(res.totalMs);
  }
  const read = (await labelStats(b.ch, b.labelled.run)).get('lookup')!;
  const g = summarize(gw);
  results.row(
    'lookup of a random id',
    `${g.n} ids; gateway ${timing(g)} (SQL ${timing(summarize(direct))}); ${fmt(read.queries / g.n, 1)} queries, ${fmt(read.readRows / g.n)} rows read per lookup`,
    goal('p99 ≤ 20 ms', g.p99 <= 20),
  );
}

const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MiB`;

/** One export of the case's filters (at most 10,000 rows), checked whole. */
async function exportOnce(b: Bench, format: string, filters: Record<string, unknown>) {
  const res = await b.http.request(`${API}/audit/export?format=${format}`, {
    method: 'POST',
    headers: { ...b.auth, 'content-type': 'application/json' },
    body: JSON.stringify(filters),
  });
  if (res.status !== 200) throw new Error(`export ${format}: ${res.status} ${res.body.slice(0, 200)}`);
  const count =
    format === 'json'
      ? (JSON.parse(res.body) as { count: number }).count
      : res.body.split('\n').filter(Boolean).length;
  return { res, count };
}

/** The export's body for a list case: the same filters, with JSON booleans. */
const exportBody = (c: ListCase) =>
  Object.fromEntries(
    Object.entries(c.query).map(([k, v]) => [k, v === 'true' ? true : v === 'false' ? false : v]),
  );

/**
 * Every case as an export of up to 10,000 rows (NDJSON): total time at the client, and its SQL replayed straight
 * (the same-SQL baseline) with the rows it read; then, without a filter, JSON and NDJSON with the gateway's RSS.
 */
async function measureExports(b: Bench, dataset: Dataset) {
  const exported: { name: string; s: Summary }[] = [];
  for (const c of listCases(dataset)) {
    const total: number[] = [];
    let count = 0;
    for (let i = -2; i < EXPORTS; i++) {
      const once = await exportOnce(b, 'ndjson', exportBody(c));
      count = once.count;
      if (i >= 0) total.push(once.res.totalMs);
    }
    const captured = await captureQueries(b.ch, sqlValue(TARGET_TENANT), () =>
      exportOnce(b, 'ndjson', exportBody(c)),
    );
    const replay: number[] = [];
    for (let i = 0; i < EXPORTS; i++) {
      const t = performance.now();
      for (const q of captured) await (await b.ch.query({ query: q.query, format: 'JSONEachRow' })).json();
      replay.push(performance.now() - t);
    }
    const t = summarize(total);
    const read = captured.reduce((n, q) => n + q.read_rows, 0);
    exported.push({ name: c.name, s: t });
    results.detail(
      `export ${c.name}, NDJSON`,
      `${fmt(count)} rows; total ${timing(t)} (same SQL ${timing(summarize(replay))}); ${captured.length} queries, ${fmt(read)} rows read (${count > 0 ? `${fmt(read / count, 1)}×` : 'none'} returned)`,
      goal(`p99 ≤ ${EXPORT_GOAL_MS} ms`, t.p99 <= EXPORT_GOAL_MS),
    );
    latencyPoint('export-latency', c.name, t);
  }
  everyCase('export of up to 10,000 rows, NDJSON', exported, EXPORT_GOAL_MS);
  for (const format of ['json', 'ndjson']) {
    const growth: number[] = [];
    const total: number[] = [];
    let bytes = 0;
    for (let i = -2; i < EXPORTS; i++) {
      const sampler = rssSampler(b.gatewayPid);
      const { res, count } = await exportOnce(b, format, {});
      const rss = sampler.stop();
      if (count !== 10_000) throw new Error(`export ${format}: ${count} events`);
      // Memory counts from the process's very first export on; times only after the warm-up.
      growth.push(rss.growth);
      bytes = res.bytes;
      if (i >= 0) total.push(res.totalMs);
    }
    const g = summarize(growth);
    results.row(
      `export ${format}, no filter, 10,000 rows, with the gateway's RSS`,
      `${mib(bytes)}; total ${timing(summarize(total))}; RSS growth p50 ${mib(g.p50)}, max ${mib(g.max)} (${fmt(g.max / bytes, 2)}× payload, warm-up included)`,
      goal('RSS growth < 2× payload', g.max < 2 * bytes),
    );
  }
}

/**
 * CONCURRENT_EXPORTS exports of 10,000 rows at once, each on its own connection, with the gateway's RSS; then one
 * more than the bound at once, of which exactly one must be refused with 429.
 */
async function measureConcurrentExports(b: Bench, url: string) {
  const clients = Array.from({ length: CONCURRENT_EXPORTS + 1 }, () => httpClient(url));
  const exportOn = (client: HttpClient) =>
    client.request(`${API}/audit/export?format=ndjson`, {
      method: 'POST',
      headers: { ...b.auth, 'content-type': 'application/json' },
      body: '{}',
      discardBody: true,
    });
  try {
    for (let round = -1; round < 3; round++) {
      const sampler = rssSampler(b.gatewayPid);
      const answers = await Promise.all(clients.slice(0, CONCURRENT_EXPORTS).map(exportOn));
      const rss = sampler.stop();
      if (answers.some((a) => a.status !== 200))
        throw new Error(`concurrent exports: ${answers.map((a) => a.status)}`);
      const bytes = answers.reduce((n, a) => n + a.bytes, 0);
      const t = summarize(answers.map((a) => a.totalMs));
      if (round >= 0) {
        results.row(
          `export ${CONCURRENT_EXPORTS} at once, NDJSON, 10,000 rows each, round ${round + 1}`,
          `${mib(bytes)} in all; total p50 ${ms(t.p50)} ms, max ${ms(t.max)} ms; RSS ${mib(rss.start)} → peak ${mib(rss.peak)} (growth ${mib(rss.growth)}, ${fmt(rss.growth / bytes, 2)}× all payloads)`,
        );
      }
    }
    const statuses = (await Promise.all(clients.map(exportOn))).map((a) => a.status);
    const refused = statuses.filter((s) => s === 429).length;
    results.row(
      `export ${CONCURRENT_EXPORTS + 1} at once by one tenant, EXPORT_CONCURRENCY=${2 * CONCURRENT_EXPORTS}`,
      `${statuses.filter((s) => s === 200).length} answered 200, ${refused} refused with 429`,
      goal('at least 1 refused with 429', refused >= 1),
    );
  } finally {
    for (const c of clients) c.close();
  }
}

/**
 * The report patient's access report (REPORT_ROWS events over six years) in each format, whole, beside its events
 * read straight from ClickHouse with the report's own query (the least a report does). The bench's trees are empty:
 * the checkpoint of each row is looked up, and found in none.
 */
async function measureReports(b: Bench, dataset: Dataset) {
  const since = new Date(dataset.endMs - 6 * 365 * 86_400_000 - 86_400_000).toISOString();
  const filters = { patient_id: REPORT_PATIENT, since: Date.parse(since), until: dataset.endMs + 1 };
  const direct: number[] = [];
  for (let i = -WARMUP; i < SAMPLES; i++) {
    const t = performance.now();
    const events = await readReportEvents(b.ch, await FIRST_GENERATION(), TARGET_TENANT, filters);
    if (i >= 0) direct.push(performance.now() - t);
    if (events.length !== REPORT_ROWS) throw new Error(`report: ${events.length} events, not ${REPORT_ROWS}`);
  }
  const baseline = summarize(direct);
  for (const { format, goalMs, samples } of REPORT_FORMATS) {
    const query = new URLSearchParams({
      patient_id: REPORT_PATIENT,
      since,
      format,
      sort: 'user_id',
      order: 'asc',
    });
    const timings: number[] = [];
    let bytes = 0;
    for (let i = -2; i < samples; i++) {
      const res = await b.http.request(`${API}/audit/reports/patient-access?${query}`, { headers: b.auth });
      if (res.status !== 200) throw new Error(`report ${format}: ${res.status} ${res.body.slice(0, 200)}`);
      if (i >= 0) timings.push(res.totalMs);
      bytes = res.bytes;
    }
    const s = summarize(timings);
    latencyPoint('report-latency', format, s);
    results.row(
      `patient access report of ${fmt(REPORT_ROWS)} events over six years, ${format}${format === 'json' ? ' (first page of 100, sorted whole)' : ', whole'}`,
      `${mib(bytes)}; total ${timing(s)} (its events read straight: ${timing(baseline)})`,
      goal(`p99 ≤ ${goalMs} ms`, s.p99 <= goalMs),
    );
  }
}

async function measureOverhead(b: Bench, databaseUrl: string, key: string) {
  const rows = await eventsReader(b.ch, FIRST_GENERATION).listPage(TARGET_TENANT, {}, null, 101, Date.now());
  const o = await gatewayOverhead({
    databaseUrl,
    pepper: PEPPER,
    cursorSecret: CURSOR_SECRET,
    key,
    tenant: TARGET_TENANT,
    rows,
    readPerMinute: UNLIMITED,
    samples: 5 * SAMPLES,
  });
  results.row(
    "overhead of auth + rate limit, timed around the hook's work",
    `${timing(o.hook)} (of which take_rate_token ${timing(o.takeToken)})`,
    goal('p99 ≤ 1 ms', o.hook.p99 <= 1),
  );
  results.row(
    'overhead of auth + rate limit on a list over HTTP (limit 100, stub rows)',
    `with ${timing(o.full)}; without ${timing(o.bare)}; difference p50 ${ms(o.full.p50 - o.bare.p50)} ms, p99 ${ms(o.full.p99 - o.bare.p99)} ms`,
  );
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function main() {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`bench:read on ${settings.database} at ${new Date().toISOString()}; load average ${load()}`);
  const dataset = await ensureDataset(settings, EVENTS, RELOAD, console.log);
  const ch = createClickHouse(settings);
  await describeData(ch, dataset);

  const served = await datasetGateway('benchread', settings.database!, {
    // One tenant may take half of the process's slots.
    EXPORT_CONCURRENCY: String(2 * CONCURRENT_EXPORTS),
  });
  const { gateway } = served;
  const labelled = labelledClient(createClickHouse(settings));
  let http: HttpClient | undefined;
  try {
    await gateway.start();
    const key = await served.mint(TARGET_TENANT, 'audit:read,audit:export');
    const auth = { authorization: `Bearer ${key}` };
    http = httpClient(gateway.url);
    const client = http;
    const b: Bench = {
      async get(path) {
        const res = await client.request(`${API}${path}`, { headers: auth });
        if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.body.slice(0, 200)}`);
        return res;
      },
      http,
      auth,
      reader: eventsReader(labelled.client, FIRST_GENERATION),
      labelled,
      ch,
      gatewayPid: gateway.pid!,
    };
    console.log(`gateway pid ${gateway.pid}; ${SAMPLES} sequential samples per case after ${WARMUP} warm-up`);
    if (PARTS.includes('lists')) await measureLists(b, dataset);
    if (PARTS.includes('lookups')) await measureLookups(b);
    if (PARTS.includes('exports')) await measureExports(b, dataset);
    if (PARTS.includes('concurrent')) await measureConcurrentExports(b, gateway.url);
    if (PARTS.includes('overhead')) await measureOverhead(b, served.databaseUrl, key);
    if (PARTS.includes('reports')) await measureReports(b, dataset);
  } finally {
    http?.close();
    await served.stop();
    await labelled.client.close();
    await ch.close();
  }
  results.save([
    `${fmt(dataset.events)} events, half of them ${TARGET_TENANT}'s, from ${day(dataset.startMs)} to ${day(dataset.endMs)}.`,
    `${SAMPLES} sequential samples per list case and ${SAMPLES} lookups, after ${WARMUP} warm-up; ${EXPORTS} exports per export case, after 2 warm-up.`,
  ]);
}

await main();
