// One side of bench:cluster, run in a process of its own with the engines' addresses in its environment (the local
// stack's, or infra/cluster's `env`): ingest → queryable, list and export latency through a gateway. Prints one
// JSON line of results last, with the names of what it made. Its data is removed by a second run given those
// names in BENCH_CLUSTER_CLEAN, once both sides are measured (bench/cluster.bench.ts says why).
import { performance } from 'node:perf_hooks';
import { createClickHouse, sleep, sqlList, sqlValue } from '@audit/shared/platform';
import { makeEvent } from '../../test/support/events.js';
import { uniqueNames, type TestNames } from '../../test/support/names.js';
import { mintKey } from '../../test/support/ops-cli.js';
import { dropPostgres, migratedPostgres } from '../../test/support/postgres.js';
import {
  cleanUp,
  clickhouseSettings,
  gatewayService,
  ingestService,
  projectorService,
} from '../../test/support/stack.js';
import { httpClient } from './http-timing.js';
import { engineCpuSeconds } from './engine-cpu.js';
import { cpuSeconds } from './process-cpu.js';
import { runPool } from './pool.js';
import { summarize } from './stats.js';

const EVENTS = Number(process.env.BENCH_CLUSTER_EVENTS ?? 200_000);
const BATCH = 1000;
const CLIENTS = 4;
const TENANTS = 8;
// The first tenant holds a fifth of the events, so that an export of it fills the cap of 10,000 rows.
const HEAVY_SHARE = 5;
const LISTS = Number(process.env.BENCH_CLUSTER_LISTS ?? 300);
const EXPORTS = Number(process.env.BENCH_CLUSTER_EXPORTS ?? 20);
const WARMUP = 10;
const PEPPER = 'bench-pepper-0123456789abcdef0123456789';
const CURSOR_SECRET = 'bench-cursor-0123456789abcdef0123456789';
const UNLIMITED = String(100_000_000);
const API = '/api/v2/public';
// The folders the engines of this side run from (given by bench/cluster.bench.ts).
const ENGINE_PATHS = (process.env.BENCH_ENGINE_PATHS ?? '').split(',').filter(Boolean);

const CLEAN = process.env.BENCH_CLUSTER_CLEAN;

const names: TestNames = CLEAN ? (JSON.parse(CLEAN) as TestNames) : uniqueNames('benchcluster');
// Set once the results are printed: a side that failed removes its data at once.
let measured = false;
const tenants = Array.from({ length: TENANTS }, (_, i) => `${names.tenant}-${i}`);
const tenantOf = (i: number) => (i % HEAVY_SHARE === 0 ? tenants[0]! : tenants[1 + (i % (TENANTS - 1))]!);

async function queryable(ch: ReturnType<typeof createClickHouse>): Promise<number> {
  const result = await ch.query({
    query: `SELECT count() AS n FROM audit_event_ids WHERE tenant_id IN ${sqlList(tenants)}`,
    format: 'JSONEachRow',
  });
  return Number((await result.json<{ n: string }>())[0]?.n ?? 0);
}

/**
 * Waits until every event is queryable, to within about 20 ms. Each count is a query the engines being measured
 * serve (on the cluster, on every shard through the Distributed table: some 6 ms of the servers' CPU each, 1.5 ms
 * on one server), so it asks again after half the time the latest progress says the rest will take, at most
 * 500 ms and at least 20 ms, rather than every 20 ms.
 */
async function allQueryable(ch: ReturnType<typeof createClickHouse>) {
  let last = { n: await queryable(ch), at: performance.now() };
  // Events per millisecond between the last two counts.
  let rate = 0;
  while (last.n < EVENTS) {
    const waitMs = rate > 0 ? (EVENTS - last.n) / rate / 2 : 20;
    await sleep(Math.min(500, Math.max(20, waitMs)));
    const now = { n: await queryable(ch), at: performance.now() };
    rate = (now.n - last.n) / (now.at - last.at);
    last = now;
  }
}

/**
 * The floor of an export: the same 10,000 rows in the same order, read straight from ClickHouse over HTTP as
 * JSON lines (through the Distributed table on the cluster), without the gateway's rendering, auth or checks.
 */
async function sqlFloor(tenant: string) {
  const settings = clickhouseSettings(names);
  const query = `SELECT * FROM ${settings.database}.audit_events WHERE tenant_id = ${sqlValue(tenant)}
    ORDER BY ts DESC, event_id DESC LIMIT 10000 FORMAT JSONEachRow`;
  const http = httpClient(settings.url);
  const times: number[] = [];
  for (let i = 0; i < WARMUP + EXPORTS; i++) {
    const res = await http.request('/', { method: 'POST', body: query, discardBody: true });
    if (res.status !== 200) throw new Error(`the floor's query: ${res.status}`);
    if (i >= WARMUP) times.push(res.totalMs);
  }
  http.close();
  return summarize(times);
}

async function main() {
  const postgres = await migratedPostgres(names);
  const projector = projectorService(names, { LOG_LEVEL: 'warn' });
  const ingest = ingestService(names, { LOG_LEVEL: 'warn' });
  const gateway = gatewayService(names, {
    DATABASE_URL: postgres.url,
    API_KEY_PEPPER: PEPPER,
    CURSOR_SECRET,
    RATE_LIMIT_READ_PER_MIN: UNLIMITED,
    RATE_LIMIT_WRITE_PER_MIN: UNLIMITED,
    LOG_LEVEL: 'warn',
  });
  const ch = createClickHouse(clickhouseSettings(names));
  try {
    await projector.start();
    await ingest.start();
    const bodies: string[] = [];
    for (let i = 0; i < EVENTS; i += BATCH) {
      bodies.push(JSON.stringify(Array.from({ length: BATCH }, (_, j) => makeEvent(tenantOf(i + j), i + j))));
    }
    const cpu0 = cpuSeconds(ingest.pid!) + cpuSeconds(projector.pid!);
    const engines0 = engineCpuSeconds(ENGINE_PATHS);
    const started = performance.now();
    await runPool(bodies.length, CLIENTS, async (i) => {
      const res = await fetch(`${ingest.url}/internal/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${names.ingestToken}`, 'content-type': 'application/json' },
        body: bodies[i],
      });
      if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
    });
    const acknowledgedS = (performance.now() - started) / 1000;
    await allQueryable(ch);
    const queryableS = (performance.now() - started) / 1000;
    console.error(
      `${EVENTS} events acknowledged in ${acknowledgedS.toFixed(1)} s, queryable in ${queryableS.toFixed(1)} s`,
    );
    const cpuUs = ((cpuSeconds(ingest.pid!) + cpuSeconds(projector.pid!) - cpu0) * 1e6) / EVENTS;
    const engineCpuUs = Object.fromEntries(
      [...engineCpuSeconds(ENGINE_PATHS)].map(([kind, s]) => [
        kind,
        ((s - (engines0.get(kind) ?? 0)) * 1e6) / EVENTS,
      ]),
    );

    await gateway.start();
    const key = await mintKey({
      databaseUrl: postgres.url,
      topicPrefix: names.topicPrefix,
      pepper: PEPPER,
      tenant: tenants[0]!,
      scopes: 'audit:read,audit:export',
    });
    const headers = { authorization: `Bearer ${key}` };
    const http = httpClient(gateway.url);
    const timed = async (n: number, path: string, method = 'GET') => {
      const times: number[] = [];
      for (let i = 0; i < WARMUP + n; i++) {
        const res = await http.request(`${API}${path}`, {
          method,
          headers: method === 'POST' ? { ...headers, 'content-type': 'application/json' } : headers,
          body: method === 'POST' ? '{}' : undefined,
          discardBody: method === 'POST',
        });
        if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 200)}`);
        if (i >= WARMUP) times.push(res.totalMs);
      }
      return summarize(times);
    };
    const list = await timed(LISTS, '/audit/events?limit=100');
    const exported = await timed(EXPORTS, '/audit/export?format=json', 'POST');
    http.close();
    const exportFloor = await sqlFloor(tenants[0]!);
    console.log(
      JSON.stringify({
        events: EVENTS,
        acknowledgedPerS: EVENTS / acknowledgedS,
        queryablePerS: EVENTS / queryableS,
        ingestProjectorCpuUs: cpuUs,
        engineCpuUs,
        list,
        export: exported,
        exportFloor,
        names,
      }),
    );
    measured = true;
  } finally {
    await gateway.stop();
    await ingest.stop();
    await projector.stop();
    await ch.close();
    if (!measured) await clean();
  }
}

async function clean() {
  await cleanUp(names);
  await dropPostgres(names);
}

await (CLEAN ? clean() : main());
