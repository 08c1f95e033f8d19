// npm run bench:integrity — what the tenants' Merkle trees cost (docs/integrity.md): ingest → queryable with and
// without a notary on the same topic, inclusion proofs on a tree of 10 million leaves, and the offline verifier,
// each beside a baseline measured in the same run.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { allTopics, topics } from '@audit/shared/contract';
import { migrateClickHouse } from '@audit/shared/migrations';
import { ensureTopics, type ClickHouseClient } from '@audit/shared/platform';
import { makeEvent } from '../test/support/events.js';
import { uniqueNames } from '../test/support/names.js';
import { mintKey, opsCli } from '../test/support/ops-cli.js';
import { migratedPostgres } from '../test/support/postgres.js';
import type { ServiceProcess } from '../test/support/service-process.js';
import {
  cleanUp,
  clickhouseSettings,
  gatewayService,
  ingestService,
  notaryService,
  projectorService,
  testClickHouse,
  testKafka,
} from '../test/support/stack.js';
import { cpuMeter } from './lib/cpu-meter.js';
import { httpClient } from './lib/http-timing.js';
import { committedTo, topicEnds } from './lib/consumer-group.js';
import {
  emptyEventTables,
  mergesSettled,
  queryable,
  reached,
  treeProgress,
} from './lib/integrity-progress.js';
import { clickhouseBytes, treeStoreBytes } from './lib/integrity-storage.js';
import { runPool } from './lib/pool.js';
import { proofLatency } from './lib/proof-latency.js';
import { benchResults, goal } from './lib/results.js';
import { fmt, summarize } from './lib/stats.js';
import { loadTreeStore } from './lib/tree-store-load.js';
import { verifierDataset } from './lib/verifier-dataset.js';
import { verifierRound, type VerifierRound } from './lib/verifier-throughput.js';

const EVENTS = Number(process.env.BENCH_INTEGRITY_EVENTS ?? 600_000);
const LEAVES = Number(process.env.BENCH_INTEGRITY_LEAVES ?? 10_000_000);
const SAMPLES = Number(process.env.BENCH_INTEGRITY_SAMPLES ?? 2000);
const ROWS = Number(process.env.BENCH_INTEGRITY_ROWS ?? 500_000);
const ROUNDS = Number(process.env.BENCH_INTEGRITY_ROUNDS ?? 2);
const PIPELINE_ROUNDS = Number(process.env.BENCH_INTEGRITY_PIPELINE_ROUNDS ?? 2);
// Which parts to run (all by default), e.g. BENCH_INTEGRITY_PARTS=verifier after a change to the verifier alone.
const PARTS = (process.env.BENCH_INTEGRITY_PARTS ?? 'pipeline,proofs,verifier').split(',');
// bench:ingest's largest end-to-end case: 1000 events per request, 4 clients, 8 tenants spread over partitions.
const BATCH = 1000;
const CLIENTS = 4;
const TENANTS_PER_RUN = 8;
const RATIO_GOAL = 0.85;
const P99_GOAL_MS = 20;
const VERIFIER_GOAL = 200_000;
// The rate at which a run's CPU per event would keep every core busy: no run doing that work here can exceed it.
const CORES = availableParallelism();
const LOG_NAME = 'bench.integrity.local';
const PEPPER = 'bench-pepper-0123456789abcdef0123456789';
const CURSOR_SECRET = 'bench-cursor-0123456789abcdef0123456789';
// Per minute: no 429 interferes with the timings.
const UNLIMITED = 100_000_000;

const names = uniqueNames('benchintegrity');
const kafka = testKafka();
const auditTopic = topics(names.topicPrefix, 1).auditEvents.name;
const groups = [names.groupId];
const services: ServiceProcess[] = [];
const scratch: string[] = [];
const databases: { drop(): Promise<void> }[] = [];
const pools: pg.Pool[] = [];
const results = benchResults('integrity', ['BENCH_INTEGRITY_PARTS', 'BENCH_INTEGRITY_EVENTS']);
const notes: string[] = [];
/** What a part set up, printed as it starts and kept with the results. */
const note = (line: string) => {
  notes.push(line);
  console.log(line);
};
const ms = (n: number) => fmt(n, 1);
const us = (seconds: number, events: number) => fmt((seconds * 1e6) / events, 1);
const mib = (bytes: number) => fmt(bytes / 2 ** 20, 1);
// Two charts: the pipeline's rates are a tenth of the verifier's, which would leave their bars unreadable beside them.
const ratePoint = (chart: 'pipeline' | 'verifier', label: string, perS: number) =>
  results.point(`integrity-${chart}-rate`, label, { 'events/s': Math.round(perS) });

function started(service: ServiceProcess) {
  services.push(service);
  return service.start().then(() => service);
}

/** A tree store's bytes per million leaves: tables (with their TOAST) and indexes, each and in all. */
function storageRow(what: string, bytes: Awaited<ReturnType<typeof treeStoreBytes>>) {
  const perMillion = (n: number) => mib((n * 1e6) / bytes.leaves);
  const each = bytes.parts.map((p) => `${p.name} ${perMillion(p.bytes)}`).join(', ');
  results.row(
    what,
    `${fmt(bytes.leaves)} leaves, per million: tables ${perMillion(bytes.heap)} MiB + indexes ${perMillion(bytes.indexes)} MiB = ${perMillion(bytes.heap + bytes.indexes)} MiB (${each})`,
  );
}

/** The run's request bodies, made before it starts so that making them is not measured. */
function bodies(tenants: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < EVENTS; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, EVENTS - i) }, (_, j) =>
      makeEvent(tenants[(i + j) % tenants.length]!, i + j),
    );
    out.push(JSON.stringify(batch));
  }
  return out;
}

interface Pipeline {
  ch: ClickHouseClient;
  pool: pg.Pool;
  databaseUrl: string;
  keyDir: string;
  ingest: ServiceProcess;
}

/** How many writes the projector made and their mean size, and its trees' mean append time, from its metrics. */
async function projectorWrites(projector: ServiceProcess) {
  const text = await (await fetch(projector.metricsUrl)).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  const count = value('projector_batch_size_count');
  const appends = value('projector_tree_append_duration_seconds_count');
  const append = appends
    ? `, trees appended in ${ms((1000 * value('projector_tree_append_duration_seconds_sum')) / appends)} ms`
    : '';
  return `${fmt(count)} writes of ${fmt(value('projector_batch_size_sum') / count)} records${append}`;
}

/**
 * One run: EVENTS events sent to ingest until all are queryable, by a projector started for the run with its
 * trees on (and a notary signing them) or off. The trees of an `on` run begin at the topic's end, so that they
 * take this run's events only, as they come.
 */
async function pipelineRun(p: Pipeline, tag: string, trees: boolean) {
  const tenants = Array.from({ length: TENANTS_PER_RUN }, (_, i) => `${names.tenant}-${tag}-${i}`);
  const requests = bodies(tenants);
  if (trees) {
    const ends = await topicEnds(kafka, auditTopic);
    await p.pool.query(
      `INSERT INTO integrity_positions (topic, partition, next_offset)
       SELECT $1, * FROM unnest($2::int[], $3::bigint[])
       ON CONFLICT (topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset`,
      [auditTopic, ends.map((e) => e.partition), ends.map((e) => e.offset)],
    );
  }
  const projector = await started(
    projectorService(names, {
      LOG_LEVEL: 'warn',
      PROJECTOR_TREES: String(trees),
      DATABASE_URL: p.databaseUrl,
    }),
  );
  const notary = trees
    ? await started(
        notaryService(names, p.databaseUrl, {
          INTEGRITY_KEY_DIR: p.keyDir,
          INTEGRITY_LOG_NAME: LOG_NAME,
          LOG_LEVEL: 'warn',
        }),
      )
    : undefined;
  await emptyEventTables(p.ch, names.database);
  await mergesSettled(p.ch);
  const meter = cpuMeter({
    ingest: { pid: p.ingest.pid },
    projector: { pid: projector.pid },
    notary: { pid: notary?.pid },
    postgres: { command: 'postgres' },
    clickhouse: { command: 'clickhouse-serv' },
    kafka: { command: 'java' },
    bench: { pid: process.pid },
  });
  const t0 = performance.now();
  const leaves = trees
    ? reached(async () => (await treeProgress(p.pool, tenants)).leaves, EVENTS, 100)
    : null;
  const url = `${p.ingest.url}/internal/v1/events`;
  await runPool(requests.length, CLIENTS, async (i) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${names.ingestToken}`, 'content-type': 'application/json' },
      body: requests[i],
    });
    if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  });
  const acked = performance.now();
  // The projector commits a batch's offsets once ClickHouse (and, trees on, Postgres) has it: counted from then on.
  await committedTo(kafka, names.groupId, auditTopic, await topicEnds(kafka, auditTopic), 20);
  const visible = await reached(() => queryable(p.ch, tenants), EVENTS, 20);
  const leaved = await leaves;
  await mergesSettled(p.ch);
  const cpu = meter.stop();
  const tree = trees ? await treeProgress(p.pool, tenants) : null;
  const writes = await projectorWrites(projector);
  await notary?.stop();
  await projector.stop();
  const seconds = (visible.last - t0) / 1000;
  const each = (Object.entries(cpu.seconds) as [string, number][])
    .filter(([, s]) => s > 0)
    .map(([name, s]) => `${name} ${us(s, EVENTS)}`)
    .join(', ');
  const allUs = (cpu.total * 1e6) / EVENTS;
  // Each run among the details; the comparison of the rounds sums them up.
  results.detail(
    `pipeline ${tag}`,
    `${fmt(EVENTS)} events: ${fmt(EVENTS / seconds)} ev/s ingest→queryable (acks at ${fmt(EVENTS / ((acked - t0) / 1000))} ev/s); CPU µs/event ${each}; all ${fmt(allUs, 1)} (every core busy at ${fmt((CORES * 1e6) / allUs)} ev/s); machine ${fmt(cpu.machine.busy)} % busy, other work ${fmt(cpu.machine.rest)} %; ${writes}`,
  );
  if (leaved && tree) {
    const behind = (leaved.last - visible.last) / 1000;
    results.detail(
      `pipeline ${tag} trees`,
      `every event a leaf ${fmt(Math.abs(behind), 1)} s ${behind >= 0 ? 'after' : 'before'} the last was queryable; ${fmt(tree.checkpoints)} checkpoints signed, covering ${fmt(tree.signed)} of the ${fmt(tree.leaves)} leaves by then`,
    );
  }
  return { rate: EVENTS / seconds, allUs, cpu, tenants };
}

const mean = (runs: readonly { rate: number }[]) => runs.reduce((n, r) => n + r.rate, 0) / runs.length;
const meanUs = (runs: readonly { allUs: number }[]) => runs.reduce((n, r) => n + r.allUs, 0) / runs.length;

async function measurePipeline() {
  await migrateClickHouse(clickhouseSettings(names));
  await ensureTopics(kafka, allTopics(topics(names.topicPrefix, 1)), 1);
  const postgres = await migratedPostgres(names);
  databases.push(postgres);
  const keyDir = mkdtempSync(join(tmpdir(), 'bench-integrity-keys-'));
  scratch.push(keyDir);
  // The checkpoints' signing key, made as an operator makes it: its private half in the notary's key directory.
  const ops = opsCli(names, () => postgres.url, { INTEGRITY_KEY_DIR: keyDir, INTEGRITY_LOG_NAME: LOG_NAME });
  const created = await ops(['integrity', 'keys', 'create']);
  if (created.code !== 0) throw new Error(`ops integrity keys create: ${created.err}`);
  const pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
  pools.push(pool);
  const ch = testClickHouse(names);
  const p: Pipeline = {
    ch,
    pool,
    databaseUrl: postgres.url,
    keyDir,
    ingest: await started(ingestService(names, { LOG_LEVEL: 'warn' })),
  };
  note(
    `pipeline: ${fmt(EVENTS)} events a run, ${BATCH} per request, ${CLIENTS} clients, ${TENANTS_PER_RUN} tenants; a run to warm up, then ${PIPELINE_ROUNDS} rounds of trees off, on, on, off`,
  );
  // A run not counted first: ingest, ClickHouse and Kafka are slower until warmed. Every run has a projector
  // process of its own, so that its trees are on or off as deployed.
  await pipelineRun(p, 'warm', false);
  // Rounds of off, on, on, off: a drift of the machine over a round weighs on both sides alike.
  const off: Awaited<ReturnType<typeof pipelineRun>>[] = [];
  const on: typeof off = [];
  const rounds: number[] = [];
  for (let round = 1; round <= PIPELINE_ROUNDS; round++) {
    const first = await pipelineRun(p, `off-${2 * round - 1}`, false);
    const both = [
      await pipelineRun(p, `on-${2 * round - 1}`, true),
      await pipelineRun(p, `on-${2 * round}`, true),
    ];
    const last = await pipelineRun(p, `off-${2 * round}`, false);
    off.push(first, last);
    on.push(...both);
    rounds.push(mean(both) / mean([first, last]));
  }
  const ratio = mean(on) / mean(off);
  results.row(
    'pipeline trees on against off',
    `on ${on.map((r) => fmt(r.rate)).join(', ')} ev/s, off ${off.map((r) => fmt(r.rate)).join(', ')} ev/s: on/off ${fmt(100 * ratio, 1)} % (by round ${rounds.map((r) => `${fmt(100 * r, 1)} %`).join(', ')}); all processes ${fmt(meanUs(on), 1)} against ${fmt(meanUs(off), 1)} µs/event`,
    goal(`on/off ≥ ${100 * RATIO_GOAL} %`, ratio >= RATIO_GOAL),
  );
  // Off is the baseline: the same runs without the trees.
  ratePoint('pipeline', 'ingest → queryable, trees off (mean)', mean(off));
  ratePoint('pipeline', 'ingest → queryable, trees on (mean)', mean(on));
  storageRow('storage: tree store as the projector wrote it', await treeStoreBytes(pool));
  await mergesSettled(ch);
  const tables = await clickhouseBytes(ch, names.database);
  const events = tables.find((t) => t.table === 'audit_events')?.rows ?? 0;
  const perMillion = (bytes: number) => mib((bytes * 1e6) / events);
  results.row(
    'storage: ClickHouse per million events',
    `${fmt(events)} rows, compressed, after merges: ${tables.map((t) => `${t.table} ${perMillion(t.bytes)}`).join(', ')}; all ${perMillion(tables.reduce((n, t) => n + t.bytes, 0))} MiB`,
  );
  await ch.close();
  await p.ingest.stop();
}

async function measureProofs() {
  const tenant = 'bench-tree';
  const postgres = await migratedPostgres({ ...names, database: `${names.database}_tree` });
  databases.push(postgres);
  const pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
  pools.push(pool);
  console.log(`proofs: building a tree of ${fmt(LEAVES)} leaves …`);
  const key = { name: 'bench-tree-key', privateKey: generateKeyPairSync('ed25519').privateKey };
  const tree = await loadTreeStore(pool, {
    tenant,
    size: LEAVES,
    firstTs: Date.now() - 30 * 86_400_000,
    key,
    logName: LOG_NAME,
    progress: (done) => {
      if (done % 2_097_152 === 0 && done > 0) console.log(`  ${fmt(done)} leaves`);
    },
  });
  // Autovacuum would otherwise visit the freshly written tables in the middle of the samples.
  const vacuumed = performance.now();
  await pool.query('VACUUM ANALYZE integrity_tiles, integrity_leaf_events, integrity_subtrees');
  results.row(
    'proofs: tree built',
    `${fmt(LEAVES)} leaves in ${fmt(tree.seconds)} s (${fmt(LEAVES / tree.seconds)} leaves/s), VACUUM ANALYZE ${fmt((performance.now() - vacuumed) / 1000)} s`,
  );
  storageRow('storage: tree store written in bulk', await treeStoreBytes(pool));
  const gateway = await started(
    gatewayService(names, {
      DATABASE_URL: postgres.url,
      API_KEY_PEPPER: PEPPER,
      CURSOR_SECRET,
      RATE_LIMIT_READ_PER_MIN: String(UNLIMITED),
      LOG_LEVEL: 'warn',
    }),
  );
  const apiKey = await mintKey({
    databaseUrl: postgres.url,
    topicPrefix: names.topicPrefix,
    pepper: PEPPER,
    tenant,
    scopes: 'audit:read',
  });
  const http = httpClient(gateway.url);
  const meter = cpuMeter({
    gateway: { pid: gateway.pid },
    postgres: { command: 'postgres' },
    bench: { pid: process.pid },
  });
  try {
    const r = await proofLatency({
      pool,
      http,
      key: apiKey,
      tenant,
      size: LEAVES,
      root: tree.root,
      samples: SAMPLES,
      warmup: 20,
    });
    const timing = (s: ReturnType<typeof summarize>) =>
      `p50 ${ms(s.p50)}  p99 ${ms(s.p99)}  max ${ms(s.max)} ms`;
    results.row(
      'proofs: inclusion through the gateway',
      `${fmt(r.store.n)} random leaves of ${fmt(LEAVES)}: ${timing(r.gateway)}`,
      goal(`p99 ≤ ${P99_GOAL_MS} ms`, r.gateway.p99 <= P99_GOAL_MS),
    );
    results.row(
      'proofs: store call (integrityStore.inclusionProof)',
      `${timing(r.store)}; ${r.proofHashes} hashes made from ${fmt(r.hashesRead)} stored hashes on average`,
    );
    results.row("baseline: one leaf's hash from its tile by the primary key", timing(r.primaryKey));
    results.row(
      'baseline: GET /audit/integrity/keys through the same gateway (auth, one small query)',
      timing(r.keys),
    );
    const cpu = meter.stop();
    results.row(
      'proofs: CPU per sample (a proof by each path, a key read, the baseline)',
      `gateway ${ms((cpu.seconds.gateway * 1000) / r.store.n)} ms, Postgres ${ms((cpu.seconds.postgres * 1000) / r.store.n)} ms, this process ${ms((cpu.seconds.bench * 1000) / r.store.n)} ms; machine ${fmt(cpu.machine.busy)} % busy, other work ${fmt(cpu.machine.rest)} %`,
    );
  } finally {
    http.close();
    await gateway.stop();
  }
}

async function measureVerifier() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-integrity-verifier-'));
  scratch.push(dir);
  console.log(`verifier: making ${fmt(ROWS)} rows and their window proof …`);
  const dataset = verifierDataset(dir, ROWS, { before: ROWS / 5, after: ROWS / 5 });
  note(
    `verifier: ${fmt(ROWS)} rows, ${dataset.pages} window proof pages, a tree of ${fmt(dataset.treeSize)} leaves; ${ROUNDS} rounds, each measure in a process of its own`,
  );
  const rounds: VerifierRound[] = [];
  const machine: string[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // One measure runs at a time (the command's worker threads are in its process): any other busy core is
    // another run on the machine.
    const meter = cpuMeter({ measures: { childrenOf: process.pid }, bench: { pid: process.pid } });
    rounds.push(await verifierRound(dataset));
    const { busy, rest } = meter.stop().machine;
    machine.push(`${fmt(busy)} % busy, other work ${fmt(rest)} %`);
  }
  const row = (what: string, key: keyof VerifierRound, judged = false) => {
    const rates = rounds.map((r) => ROWS / r[key]);
    // Judged on the median round (the lower middle one of an even count), not the best: one fast round is luck.
    const median = [...rates].sort((a, b) => a - b)[Math.floor((rates.length - 1) / 2)]!;
    const cost = rounds.map((r) => us(r[key], ROWS)).join(' and ');
    const result = `${rates.map((r) => fmt(r)).join(' and ')} ev/s; ${cost} µs/event`;
    if (judged) {
      results.row(
        what,
        `${result}; median ${fmt(median)} ev/s`,
        goal(`median ≥ ${fmt(VERIFIER_GOAL)} ev/s`, median >= VERIFIER_GOAL),
      );
    } else results.row(what, result);
    ratePoint('verifier', what, median);
  };
  row('verifier: trailCheck (parsed rows, the pages, the checkpoint)', 'trailCheck', true);
  row('verifier: audit-trail-integrity command (the NDJSON file)', 'command', true);
  row('verifier: the same command on one thread (--threads 0)', 'commandOneThread');
  row('baseline: the leaf hash of the canonical encodings alone', 'sha256');
  row('baseline: the leaf encoding and its hash (leafHashOf)', 'encodeAndSha256');
  row("baseline: each row's leaf from its bytes (rowLeafOfBytes)", 'leafFromBytes');
  row('baseline: JSON.parse of the lines alone', 'parse');
  row("baseline: reading the file's lines alone (the command's reader)", 'readLines');
  results.detail('verifier: the machine during each round', machine.join('; '));
}

let cleaned: Promise<void> | undefined;
// Everything the run made goes, also after a failure or an interrupt.
const cleanup = () =>
  (cleaned ??= (async () => {
    // Work still under way (a poll, a request) fails once its pools and services are gone: that must not end the
    // process before the clean-up has.
    process.on('unhandledRejection', () => undefined);
    for (const s of services.reverse()) await s.stop().catch(() => undefined);
    for (const p of pools) await p.end().catch(() => undefined);
    await cleanUp(names, groups).catch((err: unknown) => console.error(`clean-up: ${String(err)}`));
    for (const d of databases)
      await d.drop().catch((err: unknown) => console.error(`clean-up: ${String(err)}`));
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  })());

async function main() {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`${signal}: cleaning up`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  console.log(`bench:integrity on ${names.id}`);
  notes.push(`parts: ${PARTS.join(', ')}`);
  try {
    if (PARTS.includes('pipeline')) await measurePipeline();
    if (PARTS.includes('proofs')) await measureProofs();
    if (PARTS.includes('verifier')) await measureVerifier();
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  } finally {
    await cleanup();
  }
  // A failed run's rows are printed as they come; saving them would replace the last whole result with a part.
  if (!process.exitCode) results.save(notes);
}

await main();
