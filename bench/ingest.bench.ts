// npm run bench:ingest — ingest API → Kafka → projector → ClickHouse, with its baselines measured in the same run.
import {
  auditEventCodec,
  allTopics,
  topics,
  validateBatch,
  type AuditEventRecord,
} from '@audit/shared/contract';
import { dropClickHouseDatabase, migrateClickHouse } from '@audit/shared/migrations';
import {
  sleep,
  createClickHouse,
  ensureTopics,
  schemaWriter,
  sqlIdentifier,
  sqlList,
  sqlValue,
  keyPartitioner,
  type ClickHouseClient,
} from '@audit/shared/platform';
import { createFilterIndex, projectionTables } from '@audit/shared/projection';
import { availableParallelism } from 'node:os';
import { clickhouseSink } from '../services/projector/src/adapters/clickhouse.sink.js';
import { makeEvent } from '../test/support/events.js';
import { uniqueNames } from '../test/support/names.js';
import {
  cleanUp,
  clickhouseSettings,
  ingestService,
  projectorService,
  testClickHouse,
  testKafka,
} from '../test/support/stack.js';
import { committedTo, topicEnds } from './lib/consumer-group.js';
import { cpuSeconds, runCpuSeconds } from './lib/process-cpu.js';
import { runPool } from './lib/pool.js';
import { benchResults, goal } from './lib/results.js';
import { fmt, summarize } from './lib/stats.js';

const BASELINE_EVENTS = Number(process.env.BENCH_BASELINE_EVENTS ?? 200_000);
const RATE_PER_S = 5000;
const RATE_SECONDS = 15;
const E2E = [
  { batch: 1, events: 3000, concurrency: 16 },
  { batch: 100, events: 100_000, concurrency: 8 },
  { batch: 1000, events: 200_000, concurrency: 4 },
];

const names = uniqueNames('bench');
const kafka = testKafka();
const topicSet = topics(names.topicPrefix, 1);
const baselineTopic = { ...topicSet.auditEvents, name: `${names.topicPrefix}baseline` };
const baseSettings = { ...clickhouseSettings(names), database: `${names.database}_base` };
const codec = auditEventCodec();
const results = benchResults('ingest');
const ratePoint = (label: string, rate: number) =>
  results.point('ingest-rate', label, { 'events/s': Math.round(rate) });

// CPU of every process an event passes through: this process (the clients and the baselines), the services it
// started, ClickHouse and Kafka. Divided by the events, it is the work per event; the machine's cores divided by
// that is the rate at which the work would keep every core busy, which no run doing it can exceed here.
const CORES = availableParallelism();
const servicePids: (number | undefined)[] = [];
const allCpuSeconds = () => runCpuSeconds([process.pid, ...servicePids], ['clickhouse-serv', 'java']);
const perEvent = (cpuSeconds: number, events: number) => (cpuSeconds * 1e6) / events;
const fillsCores = (usPerEvent: number) => (CORES * 1e6) / usPerEvent;
/** Until ClickHouse has merged what the work wrote (no merge running for 1.5 s), so that its merges count too. */
async function mergesSettled() {
  const ch = createClickHouse(baseSettings);
  for (let quiet = 0; quiet < 3;) {
    const r = await ch.query({ query: 'SELECT count() AS n FROM system.merges', format: 'JSONEachRow' });
    quiet = Number((await r.json<{ n: string }>())[0]?.n ?? 0) === 0 ? quiet + 1 : 0;
    await sleep(500);
  }
  await ch.close();
}

async function measured<T>(events: number, work: () => Promise<T>) {
  await mergesSettled();
  const cpu0 = allCpuSeconds();
  const result = await work();
  await mergesSettled();
  const us = perEvent(allCpuSeconds() - cpu0, events);
  return {
    result,
    us,
    line: `all processes ${fmt(us, 1)} µs/event (every core busy at ${fmt(fillsCores(us))} ev/s)`,
  };
}

// Real traffic comes from many tenants, so it spreads over the topic's partitions.
const TENANTS_PER_RUN = 8;
const tenantsOf = (label: string) => Array.from({ length: TENANTS_PER_RUN }, (_, i) => `${label}-${i}`);

function records(label: string, count: number): AuditEventRecord[] {
  const tenants = tenantsOf(label);
  const out: AuditEventRecord[] = [];
  for (let i = 0; i < count; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - i) }, (_, j) =>
      makeEvent(tenants[(i + j) % tenants.length]!, i + j),
    );
    const result = validateBatch(batch, { clock: Date.now });
    if (!result.ok) throw new Error('bench events must be valid');
    out.push(...result.records);
  }
  return out;
}

/**
 * Events of the run that reads can see: in the by-id table and, while the filter index exists, in it too (its
 * view writes last).
 */
async function count(ch: ClickHouseClient, label: string, indexed: boolean): Promise<number> {
  const ofRun = `tenant_id IN ${sqlList(tenantsOf(label))}`;
  const ids = `(SELECT count() FROM audit_event_ids WHERE ${ofRun})`;
  const r = await ch.query({
    query: indexed
      ? `SELECT least(${ids}, (SELECT count() FROM ${projectionTables(1).index} WHERE ${ofRun} AND dim = 1)) AS n`
      : `SELECT ${ids} AS n`,
    format: 'JSONEachRow',
  });
  return Number((await r.json<{ n: string }>())[0]?.n ?? 0);
}

async function waitCount(
  ch: ClickHouseClient,
  label: string,
  target: number,
  onFirst?: (n: number) => void,
  indexed = true,
) {
  let first = false;
  for (;;) {
    const n = await count(ch, label, indexed);
    if (!first && n > 0) {
      first = true;
      onFirst?.(n);
    }
    if (n >= target) return;
    await sleep(20);
  }
}

async function produceRaw(topic: string, recs: AuditEventRecord[]): Promise<number> {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: keyPartitioner,
  });
  await producer.connect();
  const messages = recs.map((r) => ({ key: r.tenant_id, value: codec.encode(r) }));
  const started = performance.now();
  for (let i = 0; i < messages.length; i += 1000) {
    await producer.send({ topic, acks: -1, messages: messages.slice(i, i + 1000) });
  }
  const seconds = (performance.now() - started) / 1000;
  await producer.disconnect();
  return recs.length / seconds;
}

/** The projector's own insert (same encoding and tables), without Kafka, decoding or deduplication. */
async function insertDirect(recs: AuditEventRecord[]): Promise<number> {
  const ch = createClickHouse(baseSettings);
  const sink = clickhouseSink(ch, baseSettings.database).on(projectionTables(1));
  const started = performance.now();
  for (let i = 0; i < recs.length; i += 10_000) await sink.insert(recs.slice(i, i + 10_000));
  const seconds = (performance.now() - started) / 1000;
  await ch.close();
  return recs.length / seconds;
}

async function main() {
  await migrateClickHouse(clickhouseSettings(names));
  await migrateClickHouse(baseSettings);
  await ensureTopics(kafka, [...allTopics(topicSet), baselineTopic], 1);
  const ch = testClickHouse(names);
  console.log(
    `bench:ingest on ${names.id} (2-core goals: e2e ≥ 25,000 ev/s at 1000/batch; projector ≥ 70 % of the slower baseline; p99 < 2 s at 5,000 ev/s)`,
  );

  const baseRecords = records('bench-baseline', BASELINE_EVENTS);
  const produced = await measured(BASELINE_EVENTS, () => produceRaw(baselineTopic.name, baseRecords));
  const kafkaRate = produced.result;
  results.row(
    'kafkajs produce baseline (idempotent, acks=all, 1000/send)',
    `${fmt(kafkaRate)} ev/s; ${produced.line}`,
  );
  ratePoint('kafkajs produce baseline', kafkaRate);
  const inserted = await measured(BASELINE_EVENTS, () => insertDirect(baseRecords));
  const chRate = inserted.result;
  results.row(
    "ClickHouse insert baseline (the projector's TSV insert, 10,000/insert)",
    `${fmt(chRate)} ev/s; ${inserted.line}`,
  );
  ratePoint('ClickHouse insert baseline', chRate);
  const slower = Math.min(kafkaRate, chRate);
  // The same insert without the filter index's views.
  const baseClient = createClickHouse(baseSettings);
  for (const view of [projectionTables(1).indexView, projectionTables(1).bucketsView]) {
    await baseClient.command({ query: `DROP TABLE ${sqlIdentifier(view)}` });
  }
  await baseClient.close();
  const bareRecords = records('bench-baseline-bare', BASELINE_EVENTS);
  const bare = await measured(BASELINE_EVENTS, () => insertDirect(bareRecords));
  results.row(
    'ClickHouse insert baseline without the filter index',
    `${fmt(bare.result)} ev/s; ${bare.line}`,
  );
  ratePoint('ClickHouse insert without the filter index', bare.result);
  // The floor: the least work an acknowledged, queryable event needs here, to be written to Kafka and inserted
  // into ClickHouse, leaving out HTTP, JSON, validation, consuming, decoding and deduplication.
  const floorWith = produced.us + inserted.us;
  const floorWithout = produced.us + bare.us;
  results.row(
    'floor: produce + insert',
    `${fmt(floorWith, 1)} µs/event with the filter index, ${fmt(floorWithout, 1)} without; every core busy at ${fmt(fillsCores(floorWith))} and ${fmt(fillsCores(floorWithout))} ev/s: ${fmt((100 * floorWithout) / floorWith)} %`,
  );
  ratePoint('floor, every core busy', fillsCores(floorWith));
  ratePoint('floor without the filter index, every core busy', fillsCores(floorWithout));

  // Projector alone: a backlog already on the topic, consumed from a cold start.
  const backlog = `${names.tenant}-backlog`;
  await produceRaw(topicSet.auditEvents.name, records(backlog, BASELINE_EVENTS));
  const projector = projectorService(names, { LOG_LEVEL: 'warn' });
  await projector.start();
  servicePids.push(projector.pid);
  let t0 = 0;
  let n0 = 0;
  await waitCount(ch, backlog, BASELINE_EVENTS, (n) => {
    t0 = performance.now();
    n0 = n;
  });
  const projectorRate = (BASELINE_EVENTS - n0) / ((performance.now() - t0) / 1000);
  results.row(
    'projector catch-up (decode, validate, dedupe, insert)',
    `${fmt(projectorRate)} ev/s = ${fmt((100 * projectorRate) / slower, 1)} % of the slower baseline`,
    goal('≥ 70 % of the slower baseline', projectorRate >= 0.7 * slower),
  );
  ratePoint('projector catch-up', projectorRate);

  const ingest = ingestService(names, { LOG_LEVEL: 'warn' });
  await ingest.start();
  servicePids.push(ingest.pid);
  const url = `${ingest.url}/internal/v1/events`;
  const post = (body: string) =>
    fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${names.ingestToken}`, 'content-type': 'application/json' },
      body,
    }).then(async (res) => {
      if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
    });

  /** One end-to-end run: its events sent by `run.concurrency` clients until all are queryable. */
  async function e2e(run: (typeof E2E)[number], tag: string, indexed = true) {
    const label = `${names.tenant}-${tag}`;
    const tenants = tenantsOf(label);
    const bodies: string[] = [];
    for (let i = 0; i < run.events; i += run.batch) {
      bodies.push(
        JSON.stringify(
          Array.from({ length: run.batch }, (_, j) => makeEvent(tenants[(i + j) % tenants.length]!, i + j)),
        ),
      );
    }
    const cpu0 = cpuSeconds(ingest.pid!) + cpuSeconds(projector.pid!);
    const all = await measured(run.events, async () => {
      const started = performance.now();
      await runPool(bodies.length, run.concurrency, (i) => post(bodies[i]!));
      const acked = performance.now();
      // Rows are counted once the projector has committed every record (committedTo says why).
      const topic = topicSet.auditEvents.name;
      await committedTo(kafka, names.groupId, topic, await topicEnds(kafka, topic), 20);
      await waitCount(ch, label, run.events, undefined, indexed);
      return { started, acked, seconds: (performance.now() - started) / 1000 };
    });
    const { started, acked, seconds } = all.result;
    const cpu = cpuSeconds(ingest.pid!) + cpuSeconds(projector.pid!) - cpu0;
    return {
      rate: run.events / seconds,
      us: all.us,
      line: `(acks at ${fmt(run.events / ((acked - started) / 1000))} ev/s; ${run.concurrency} clients); CPU ${fmt(perEvent(cpu, run.events), 1)} µs/event (ingest+projector), ${all.line}`,
    };
  }

  for (const run of E2E) {
    const { rate, line } = await e2e(run, `b${run.batch}`);
    results.row(`end to end, ${run.batch} per request`, `${fmt(rate)} ev/s ingest→queryable ${line}`);
    ratePoint(`end to end, ${run.batch} per request`, rate);
  }

  // The filter index's cost: batches of 1000 with its views dropped, between two runs with them.
  const big = E2E.at(-1)!;
  const withIndex = [await e2e(big, 'with-1')];
  for (const view of [projectionTables(1).indexView, projectionTables(1).bucketsView]) {
    await ch.command({ query: `DROP TABLE ${sqlIdentifier(view)}` });
  }
  const without = await e2e(big, 'without', false);
  await createFilterIndex(schemaWriter(ch, baseSettings), projectionTables(1));
  withIndex.push(await e2e(big, 'with-2'));
  const slowest = Math.min(...withIndex.map((r) => r.rate));
  const ratio = slowest / without.rate;
  results.row(
    'filter index cost, 1000 per request',
    `with ${withIndex.map((r) => fmt(r.rate)).join(' and ')} ev/s, without ${fmt(without.rate)} ev/s: ${fmt(100 * ratio, 1)} %`,
    goal('≥ 85 %, and ≥ 25,000 ev/s with it', ratio >= 0.85 && slowest >= 25_000),
  );
  results.row(
    'filter index cost in CPU, 1000 per request',
    `all processes: with ${withIndex.map((r) => fmt(r.us, 1)).join(' and ')} µs/event, without ${fmt(without.us, 1)}: every core busy at ${withIndex.map((r) => fmt(fillsCores(r.us))).join(' and ')} and ${fmt(fillsCores(without.us))} ev/s`,
  );
  ratePoint('end to end, 1000 per request, with the filter index (1st)', withIndex[0]!.rate);
  ratePoint('end to end, 1000 per request, without the filter index', without.rate);
  ratePoint('end to end, 1000 per request, with the filter index (2nd)', withIndex[1]!.rate);

  // Fixed rate: one sampled event per request; latency = request sent → row visible in ClickHouse.
  const tenant = `${names.tenant}-rate`;
  const perRequest = 100;
  const intervalMs = (1000 * perRequest) / RATE_PER_S;
  const requests = (RATE_PER_S * RATE_SECONDS) / perRequest;
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let sending = true;
  const poller = (async () => {
    while (sending || sentAt.size > 0) {
      const pending = [...sentAt.keys()];
      if (pending.length > 0) {
        const r = await ch.query({
          query: `SELECT event_id FROM audit_event_ids WHERE tenant_id = ${sqlValue(tenant)} AND event_id IN ${sqlList(pending)}`,
          format: 'JSONEachRow',
        });
        const now = performance.now();
        for (const { event_id } of await r.json<{ event_id: string }>()) {
          latencies.push(now - sentAt.get(event_id)!);
          sentAt.delete(event_id);
        }
      }
      await sleep(10);
    }
  })();
  const t = performance.now();
  const inflight: Promise<void>[] = [];
  for (let k = 0; k < requests; k++) {
    const due = t + k * intervalMs;
    if (due > performance.now()) await sleep(due - performance.now());
    const batch = Array.from({ length: perRequest }, (_, j) => makeEvent(tenant, k * perRequest + j));
    sentAt.set(batch[0]!.event_id, performance.now());
    inflight.push(post(JSON.stringify(batch)));
  }
  await Promise.all(inflight);
  sending = false;
  await poller;
  const lat = summarize(latencies);
  results.row(
    `latency at ${fmt(RATE_PER_S)} ev/s, request sent → row visible`,
    `p50 ${fmt(lat.p50)} ms, p99 ${fmt(lat.p99)} ms, max ${fmt(lat.max)} ms (${perRequest}/request, ${lat.n} samples)`,
    goal('p99 < 2000 ms', lat.p99 < 2000),
  );

  await ingest.stop();
  await projector.stop();
  await ch.close();
  await dropClickHouseDatabase(baseSettings);
  await cleanUp(names);
  results.save([
    `${fmt(BASELINE_EVENTS)} events for each baseline and for the projector's catch-up; end to end: ${E2E.map((r) => `${fmt(r.events)} events at ${r.batch} per request`).join(', ')}, each until all are queryable.`,
    '"all processes": the CPU of this process, the services, ClickHouse and Kafka (merges included) per event; "every core busy at": the rate at which that work would fill every core, which no run doing it can exceed here.',
    'The floor: the least work an acknowledged, queryable event needs here (written to Kafka, inserted into ClickHouse), without HTTP, JSON, validation, consuming, decoding and deduplication.',
  ]);
}

await main();
