// npm run bench:replay — `ops replay projection` on a million events, against the projector's normal catch-up on
// the same events, measured in the same run; list reads timed before and during the replay.
import {
  allTopics,
  auditEventCodec,
  topics,
  validateBatch,
  type AuditEventRecord,
} from '@audit/shared/contract';
import { migrateClickHouse } from '@audit/shared/migrations';
import { ensureTopics, sleep, keyPartitioner } from '@audit/shared/platform';
import { replayGroupId } from '@audit/shared/projection';
import { runCli } from '../services/ops/src/cli.js';
import { makeEvent } from '../test/support/events.js';
import { uniqueNames } from '../test/support/names.js';
import { migratedPostgres } from '../test/support/postgres.js';
import {
  cleanUp,
  CLICKHOUSE_URL,
  clickhouseSettings,
  gatewayService,
  KAFKA_BROKERS,
  projectorService,
  testKafka,
} from '../test/support/stack.js';
import { benchResults, goal } from './lib/results.js';
import { fmt, summarize } from './lib/stats.js';

const EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 1_000_000);
const TENANTS = 16;
const CHUNK = 50_000;
const READ_SAMPLES = 300;
const GOAL_RATIO = 80;
const PEPPER = 'bench-pepper-0123456789abcdef0123456789';
const CURSOR_SECRET = 'bench-cursor-0123456789abcdef0123456789';

const names = uniqueNames('benchreplay');
const kafka = testKafka();
const topicSet = topics(names.topicPrefix, 1);
const topic = topicSet.auditEvents.name;
const tenants = Array.from({ length: TENANTS }, (_, i) => `${names.tenant}-${i}`);
const results = benchResults('replay');

/** The events, validated as ingest would, written straight to the audit topic (ingest is not measured here). */
async function produce(): Promise<void> {
  const codec = auditEventCodec();
  const producer = kafka.producer({ idempotent: true, createPartitioner: keyPartitioner });
  await producer.connect();
  for (let i = 0; i < EVENTS; i += CHUNK) {
    const batch = Array.from({ length: Math.min(CHUNK, EVENTS - i) }, (_, j) =>
      makeEvent(tenants[(i + j) % TENANTS]!, i + j),
    );
    const checked = validateBatch(batch, { clock: Date.now });
    if (!checked.ok) throw new Error('bench events must be valid');
    const messages = checked.records.map((r: AuditEventRecord) => ({
      key: r.tenant_id,
      value: codec.encode(r),
    }));
    for (let k = 0; k < messages.length; k += 5000) {
      await producer.send({ topic, acks: -1, messages: messages.slice(k, k + 5000) });
    }
  }
  await producer.disconnect();
}

/**
 * A group's progress through the topic, sampled: records per second from its first progress to the end. Both
 * the catch-up and the replay are measured this way, so group joins and the first fetch weigh alike.
 */
async function rateOf(groupId: string, until: () => boolean = () => false): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  const total = ends.reduce((s, p) => s + Number(p.high), 0);
  let first: { at: number; done: number } | null = null;
  try {
    for (;;) {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const done = (offsets?.partitions ?? []).reduce((s, p) => s + Math.max(0, Number(p.offset)), 0);
      const at = performance.now();
      if (first === null && done > 0) first = { at, done };
      if (done >= total || until()) {
        if (!first || at === first.at) return NaN;
        return (done - first.done) / ((at - first.at) / 1000);
      }
      await sleep(50);
    }
  } finally {
    await admin.disconnect();
  }
}

async function mintKeys(databaseUrl: string): Promise<string[]> {
  const env = {
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS,
    TOPIC_PREFIX: names.topicPrefix,
    API_KEY_PEPPER: PEPPER,
  };
  const keys: string[] = [];
  for (const tenant of tenants) {
    let out = '';
    const argv = ['keys', 'create', '--tenant', tenant, '--scopes', 'audit:read', '--json'];
    const code = await runCli(
      argv,
      { ...env, LOG_LEVEL: 'error' },
      { out: (t) => (out += t), err: () => {} },
    );
    if (code !== 0) throw new Error(`ops keys create exited with ${code}`);
    keys.push((JSON.parse(out) as { key: string }).key);
  }
  return keys;
}

/** First pages of random tenants, one after the other, until `stop` says so (or `count` are done). */
async function timedReads(url: string, keys: string[], count: number, stop: () => boolean = () => false) {
  const times: number[] = [];
  let errors = 0;
  for (let i = 0; i < count && !stop(); i++) {
    const started = performance.now();
    const res = await fetch(`${url}/api/v2/public/audit/events?limit=100`, {
      headers: { authorization: `Bearer ${keys[i % keys.length]}` },
    });
    const body = (await res.json()) as { events?: unknown[] };
    times.push(performance.now() - started);
    if (res.status !== 200 || body.events?.length !== 100) errors += 1;
  }
  return { ...summarize(times), errors };
}

async function main() {
  const setUp = `${fmt(EVENTS)} events, ${TENANTS} tenants`;
  console.log(
    `bench:replay on ${names.id}: ${setUp} (goal: replay ≥ ${GOAL_RATIO} % of the projector's catch-up, reads unaffected)`,
  );
  await migrateClickHouse(clickhouseSettings(names));
  await ensureTopics(kafka, allTopics(topicSet), 1);
  const producedAt = performance.now();
  await produce();
  results.row(
    'events written to the audit topic',
    `${fmt(EVENTS)} in ${fmt((performance.now() - producedAt) / 1000, 1)} s`,
  );

  const postgres = await migratedPostgres(names);
  const projector = projectorService(names, { LOG_LEVEL: 'warn' });
  const gateway = gatewayService(names, {
    DATABASE_URL: postgres.url,
    API_KEY_PEPPER: PEPPER,
    CURSOR_SECRET,
    RATE_LIMIT_READ_PER_MIN: '10000000',
    LOG_LEVEL: 'warn',
  });
  try {
    await gateway.start();
    const keys = await mintKeys(postgres.url);
    // 1. Normal catch-up: a projector started onto the whole backlog, its group new, while list reads run (as
    // during the replay, so that both compete with the same reads).
    let catching = true;
    const readsWhileCatchingUp = timedReads(gateway.url, keys, Number.MAX_SAFE_INTEGER, () => !catching);
    const catchingUp = rateOf(names.groupId);
    await projector.start();
    const catchUp = await catchingUp;
    catching = false;
    const catchUpReads = await readsWhileCatchingUp;
    results.row('projector catch-up (normal path)', `${fmt(catchUp)} events/s`);
    // Pages may come back short while the projection fills: only their latency says something here.
    results.row(
      'list reads during the catch-up',
      `p50 ${fmt(catchUpReads.p50, 1)} ms, p99 ${fmt(catchUpReads.p99, 1)} ms (${fmt(catchUpReads.n)} reads)`,
    );

    const before = await timedReads(gateway.url, keys, READ_SAMPLES);
    results.row(
      'list reads before the replay',
      `p50 ${fmt(before.p50, 1)} ms, p99 ${fmt(before.p99, 1)} ms, ${before.errors} errors`,
    );

    // 2. The replay, through the operator command, with reads running all along.
    let replaying = true;
    const during = timedReads(gateway.url, keys, Number.MAX_SAFE_INTEGER, () => !replaying);
    const replayRate = rateOf(replayGroupId(names.groupId, 2), () => !replaying);
    let out = '';
    let err = '';
    const code = await runCli(
      ['replay', 'projection', '--drop-old-after', '5', '--json'],
      {
        KAFKA_BROKERS,
        TOPIC_PREFIX: names.topicPrefix,
        CLICKHOUSE_URL,
        CLICKHOUSE_DATABASE: names.database,
        PROJECTOR_GROUP_ID: names.groupId,
        DATABASE_URL: postgres.url,
        LOG_LEVEL: 'error',
      },
      { out: (t) => (out += t), err: (t) => (err += `${t}\n`) },
    );
    replaying = false;
    if (code !== 0) throw new Error(`ops replay projection exited with ${code}: ${err}`);
    const result = JSON.parse(out) as Record<string, number>;
    const replay = await replayRate;
    const reads = await during;
    const ratio = (100 * replay) / catchUp;
    results.row(
      'replay (ops replay projection)',
      `${fmt(replay)} events/s = ${fmt(ratio, 1)} % of catch-up; ${fmt(result.records_replayed!)} records, ${fmt(result.duration_ms! / 1000, 1)} s in all, writes held ${fmt(result.writes_held_ms!)} ms`,
      goal(`≥ ${GOAL_RATIO} % of the catch-up`, ratio >= GOAL_RATIO),
    );
    results.row(
      'list reads during the replay',
      `p50 ${fmt(reads.p50, 1)} ms, p99 ${fmt(reads.p99, 1)} ms, ${reads.errors} errors of ${fmt(reads.n)}`,
    );
  } finally {
    await gateway.stop();
    await projector.stop();
    await postgres.drop();
    await cleanUp(names, [names.groupId]);
  }
  // The reads' goal has no figure to meet, only a comparison to make: it stays a note.
  results.save([
    setUp,
    'goal of the list reads during the replay: unaffected, beside those before it and during the catch-up',
  ]);
}

await main();
