import kafkajs, { type Admin, type Kafka } from 'kafkajs';
import type pg from 'pg';
import {
  checkGrowth,
  generationsRepository,
  generationTopic,
  ownTopicConfig,
  retentionEntriesOf,
  sealedConfig,
  setTopicLimit,
} from '@audit/shared/audit-topic';
import { type Topics } from '@audit/shared/contract';
import { ensureTopicsSettled, kafkaSettled, sleep } from '@audit/shared/platform';
import { CliError } from './cli-error.js';

const { ConfigResourceTypes } = kafkajs;

// The least time the seal is given to reach the brokers (KRaft takes milliseconds).
const SEAL_REACH_MS = 3000;

export interface GrowContext {
  kafka: Kafka;
  admin: Admin;
  pool: pg.Pool;
  topics: Topics;
  replicationFactor: number;
  note: (text: string) => void;
}

export interface GrowResult {
  generation: number;
  topic: string;
  partitions: number;
  previous: { topic: string; partitions: number; ends: string[] };
  resumed: boolean;
  duration_ms: number;
}

/** A setting of every broker, the largest (the default where a broker does not say). */
async function brokerSetting(admin: Admin, name: string, fallback: number): Promise<number> {
  const { brokers } = await kafkaSettled(() => admin.describeCluster());
  const { resources } = await kafkaSettled(() =>
    admin.describeConfigs({
      includeSynonyms: false,
      resources: brokers.map((b) => ({
        type: ConfigResourceTypes.BROKER,
        name: String(b.nodeId),
        configNames: [name],
      })),
    }),
  );
  return Math.max(...resources.map((r) => Number(r.configEntries[0]?.configValue ?? fallback)));
}

async function replicasOf(admin: Admin, topic: string): Promise<number> {
  const partitions = await topicPartitions(admin, topic);
  return Math.max(...partitions.map((p) => p.replicas.length));
}

/**
 * How long the seal is given to reach every broker that leads a partition of the sealed topic before the new
 * generation opens. KRaft hands a config change to every broker in milliseconds; a broker cut off from the
 * controllers keeps its old view, but only until they fence it (`broker.session.timeout.ms`) and move its
 * leaderships, after which its followers no longer acknowledge its writes. One replica: its broker alone.
 */
async function sealReachMs(admin: Admin, topic: string): Promise<number> {
  if ((await replicasOf(admin, topic)) <= 1) return SEAL_REACH_MS;
  return Math.max(SEAL_REACH_MS, (await brokerSetting(admin, 'broker.session.timeout.ms', 9000)) + 1000);
}

/**
 * How long after the seal an end offset may still move: a record appended before the seal and not yet on every
 * in-sync replica is committed once they have it, or once the leader drops the slow one from the set, which it
 * checks every half `replica.lag.time.max.ms`. One replica: committed as it is appended.
 */
async function settleMs(admin: Admin, topic: string): Promise<number> {
  if ((await replicasOf(admin, topic)) <= 1) return 0;
  return Math.ceil((await brokerSetting(admin, 'replica.lag.time.max.ms', 30_000)) * 1.5) + 1000;
}

/**
 * Grows the audit topic into a new generation with more partitions (docs/topic-growth.md "The switch"): the new
 * topic is created sealed and recorded; the newest generation is sealed, so that the broker refuses every write to
 * it; once the seal has reached the brokers the new one opens, and producers refused by the old one move to it;
 * once no end offset of the old one can move any more, its ends are recorded, and each consumer group reads the
 * new generation after it has read the old one up to them. Every step can be run again: a run that stopped is
 * finished by the next.
 */
export async function growAuditTopic(ctx: GrowContext, partitions: number): Promise<GrowResult> {
  const started = Date.now();
  const spec = ctx.topics.auditEvents;
  const recorded = await generationsRepository.list(ctx.pool, spec.name, spec.partitions);
  const newest = recorded.at(-1)!;
  const resumed = newest.generation > 1 && newest.previousEnds === null;
  if (resumed && newest.partitions !== partitions)
    throw new CliError(
      `the growth to generation ${newest.generation} (${newest.partitions} partitions) is not finished: run ` +
        `ops topics grow --partitions ${newest.partitions} to finish it first`,
      2,
    );
  const previous = resumed ? recorded.at(-2)! : newest;
  const previousPartitions = (await topicPartitions(ctx.admin, previous.topic)).length;
  const refusal = resumed ? null : checkGrowth(previousPartitions, partitions);
  if (refusal) throw new CliError(refusal, 2);
  const generation = resumed ? newest.generation : newest.generation + 1;
  const topic = generationTopic(spec.name, generation);

  ctx.note(`creating ${topic} with ${partitions} partitions, sealed`);
  // With the retention the operator gave the generation before it (ops topics retention).
  const retention = retentionEntriesOf(await kafkaSettled(() => ownTopicConfig(ctx.admin, previous.topic)));
  await ensureTopicsSettled(
    ctx.kafka,
    [{ name: topic, partitions, config: sealedConfig({ ...spec.config, ...retention }) }],
    ctx.replicationFactor,
  );
  // Made by a run that stopped before recording it, perhaps with another count: that growth is the one to finish.
  const made = (await topicPartitions(ctx.admin, topic)).length;
  if (made !== partitions)
    throw new CliError(
      `${topic} was made with ${made} partitions by a growth that stopped: run ops topics grow --partitions ` +
        `${made} to finish it first`,
      2,
    );
  await generationsRepository.record(ctx.pool, spec.name, generation, partitions);

  const reach = await sealReachMs(ctx.admin, previous.topic);
  ctx.note(
    `sealing ${previous.topic}: the brokers refuse every write to it; ${topic} opens in ${reach / 1000} s`,
  );
  await kafkaSettled(() => setTopicLimit(ctx.admin, previous.topic, null));
  await sleep(reach);
  ctx.note(`opening ${topic}`);
  await kafkaSettled(() => setTopicLimit(ctx.admin, topic, spec.config['max.message.bytes']!));

  const settle = await settleMs(ctx.admin, previous.topic);
  if (settle > 0)
    ctx.note(`waiting ${Math.round(settle / 1000)} s until no end offset of ${previous.topic} can move`);
  await sleep(settle);
  const offsets = await kafkaSettled(() => ctx.admin.fetchTopicOffsets(previous.topic));
  const ends = [...offsets].sort((a, b) => a.partition - b.partition).map((p) => BigInt(p.high));
  await generationsRepository.seal(ctx.pool, spec.name, generation, ends);
  return {
    generation,
    topic,
    partitions,
    previous: { topic: previous.topic, partitions: previousPartitions, ends: ends.map(String) },
    resumed,
    duration_ms: Date.now() - started,
  };
}

/**
 * The topic's partitions. Right after the topic was made, or a broker came back, the broker asked may not know it
 * yet (UNKNOWN_TOPIC_OR_PARTITION), which passes.
 */
async function topicPartitions(admin: Admin, topic: string) {
  const metadata = await kafkaSettled(() => admin.fetchTopicMetadata({ topics: [topic] }));
  return metadata.topics[0]!.partitions;
}
