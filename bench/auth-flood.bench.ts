// npm run bench:auth — a tenant's list p99 through a real gateway process, alone and while a flood of random keys
// hits the same gateway at full speed: from one address (throttled), and from a new address each request (the
// key directory alone), with the Postgres transactions each phase cost.
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { topics } from '@audit/shared/contract';
import { deleteTopics } from '@audit/shared/platform';
import { uniqueNames } from '../test/support/names.js';
import { migratedPostgres } from '../test/support/postgres.js';
import { cleanUp, gatewayService, testKafka } from '../test/support/stack.js';
import { httpClient, type HttpClient } from './lib/http-timing.js';
import { mintKey } from '../test/support/ops-cli.js';
import { benchResults, goal } from './lib/results.js';
import { fmt, summarize } from './lib/stats.js';

const SAMPLES = Number(process.env.BENCH_AUTH_SAMPLES ?? 2000);
const FLOOD_CONNECTIONS = Number(process.env.BENCH_AUTH_FLOOD_CONNECTIONS ?? 32);
const PEPPER = 'bench-pepper-0123456789abcdef0123456789';
const TENANT = 'bench-auth-tenant';
const TENANT_ADDRESS = '198.51.100.7';
const LIST = '/api/v2/public/audit/events?limit=50';
const PHASES = ['no flood', 'flood from one address', 'flood from a new address per request'] as const;

// Plain JavaScript in a thread of its own, so the flood's client work does not sit in the measuring event loop.
const FLOOD = `
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const { workerData, parentPort } = require('node:worker_threads');
const agent = new http.Agent({ keepAlive: true, maxSockets: workerData.connections });
const statuses = {};
let stopping = false;
parentPort.on('message', () => (stopping = true));
const address = () => workerData.oneAddress ? '203.0.113.9' : '10.' + [1, 2, 3].map(() => randomBytes(1)[0]).join('.');
const once = () => new Promise((resolve) => {
  const key = 'svc_live_' + randomBytes(4).toString('hex') + '_' + randomBytes(16).toString('hex');
  const req = http.get(workerData.url, { agent, headers: { authorization: 'Bearer ' + key, 'x-forwarded-for': address() } }, (res) => {
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    res.resume();
    res.on('end', resolve);
  });
  req.on('error', () => { statuses.error = (statuses.error ?? 0) + 1; resolve(); });
});
const loop = async () => { while (!stopping) await once(); };
const started = Date.now();
Promise.all(Array.from({ length: workerData.connections }, loop)).then(() => {
  parentPort.postMessage({ statuses, seconds: (Date.now() - started) / 1000 });
  agent.destroy();
});
`;

interface FloodResult {
  statuses: Record<string, number>;
  seconds: number;
}

function startFlood(url: string, oneAddress: boolean) {
  const worker = new Worker(FLOOD, {
    eval: true,
    workerData: { url, oneAddress, connections: FLOOD_CONNECTIONS },
  });
  const done = new Promise<FloodResult>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return async () => {
    worker.postMessage('stop');
    const result = await done;
    await worker.terminate();
    return result;
  };
}

async function transactions(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

async function tenantReads(http: HttpClient, key: string): Promise<number[]> {
  const headers = { authorization: `Bearer ${key}`, 'x-forwarded-for': TENANT_ADDRESS };
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const res = await http.request(LIST, { headers });
    if (res.status !== 200) throw new Error(`tenant read: ${res.status} ${res.body.slice(0, 200)}`);
    times.push(res.totalMs);
  }
  return times;
}

/** One phase's figures: the tenant's latency, the Postgres transactions it cost, and the flood's rate and answers. */
function phaseResult(times: number[], spent: number, flood: FloodResult | undefined, baselineP99: number) {
  const t = summarize(times);
  const tenant = `tenant p50 ${fmt(t.p50, 2)} ms p99 ${fmt(t.p99, 2)} ms max ${fmt(t.max, 1)} ms; Postgres transactions ${fmt(spent)} (${fmt(spent / SAMPLES, 2)} per tenant read)`;
  if (!flood) return { p99: t.p99, text: tenant };
  const sent = Object.values(flood.statuses).reduce((a, b) => a + b, 0);
  return {
    p99: t.p99,
    text: `${tenant}; flood ${fmt(sent / flood.seconds)} req/s, answers ${JSON.stringify(flood.statuses)}; p99 ${fmt(t.p99 / baselineP99, 2)}× the baseline`,
  };
}

async function main() {
  const results = benchResults('auth');
  const setUp = `${SAMPLES} sequential tenant list requests per phase; flood ${FLOOD_CONNECTIONS} connections`;
  const names = uniqueNames('benchauth');
  const postgres = await migratedPostgres(names);
  const gateway = gatewayService(names, {
    DATABASE_URL: postgres.url,
    API_KEY_PEPPER: PEPPER,
    CURSOR_SECRET: 'bench-cursor-0123456789abcdef0123456789',
    TRUSTED_PROXIES: '127.0.0.1/32',
    RATE_LIMIT_READ_PER_MIN: '100000000',
    LOG_LEVEL: 'warn',
  });
  let http: HttpClient | undefined;
  try {
    await gateway.start();
    const key = await mintKey({
      databaseUrl: postgres.url,
      topicPrefix: names.topicPrefix,
      pepper: PEPPER,
      tenant: TENANT,
      scopes: 'audit:read',
    });
    http = httpClient(gateway.url);
    console.log(`bench:auth: ${setUp}`);
    await tenantReads(http, key); // warm-up: caches, JIT, connections
    let baselineP99 = NaN;
    for (const phase of PHASES) {
      const before = await transactions(postgres.url);
      const stop = phase === 'no flood' ? null : startFlood(`${gateway.url}${LIST}`, phase.includes('one'));
      const times = await tenantReads(http, key);
      const flood = await stop?.();
      // Postgres publishes a connection's statistics up to a second late.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const spent = (await transactions(postgres.url)) - before;
      const { p99, text } = phaseResult(times, spent, flood, baselineP99);
      if (!stop) baselineP99 = p99;
      // The goal is for one address; a flood from many is what the throttle cannot see, shown for its cost.
      const held = phase.includes('one') ? goal('p99 ≤ 2× the baseline', p99 <= 2 * baselineP99) : undefined;
      results.row(phase, text, held);
    }
  } finally {
    http?.close();
    await gateway.stop();
    await postgres.drop();
    await cleanUp(names);
    await deleteTopics(
      testKafka(),
      Object.values(topics(names.topicPrefix, 1)).map((t) => t.name),
    );
  }
  results.save([setUp, 'the baseline is the no-flood phase of the same run']);
}

await main();
