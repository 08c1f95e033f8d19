import kafkajs, { type Admin, type Kafka } from 'kafkajs';
import type pg from 'pg';
import {
  checkGrowth,
  ensureTopics,
  generationsRepository,
  generationTopic,
  sealedConfig,
  setTopicLimit,
  sleep,
  type Generation,
  type Topics,
} from '@audit/shared';
import { CliError } from './cli-error.js';

const { ConfigResourceTypes } = kafkajs;

export interface GrowContext {
  kafka: Kafka;
  admin: Admin;
  pool: pg.Pool;
  topics: Topics;
  replicationFactor: number;
  /** How long the seal of the old generation is given to reach every broker before the new one opens. */
  sealReachMs: number;
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

/**
 * How long after the seal an end offset may still move: a record appended before the seal and not yet on every
 * in-sync replica is committed once they have it, or once the leader drops the slow one from the set, which it
 * checks every half `replica.lag.time.max.ms`. One replica: committed as it is appended.
 */
async function settleMs(admin: Admin, topic: string): Promise<number> {
  const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
  const replicas = Math.max(...metadata.topics[0]!.partitions.map((p) => p.replicas.length));
  if (replicas <= 1) return 0;
  const { brokers } = await admin.describeCluster();
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: brokers.map((b) => ({
      type: ConfigResourceTypes.BROKER,
      name: String(b.nodeId),
      configNames: ['replica.lag.time.max.ms'],
    })),
  });
  const lag = Math.max(...resources.map((r) => Number(r.configEntries[0]?.configValue ?? 30_000)));
  return Math.ceil(lag * 1.5) + 1000;
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
  const previousPartitions = await partitionCount(ctx.admin, previous);
  const refusal = resumed ? null : checkGrowth(previousPartitions, partitions);
  if (refusal) throw new CliError(refusal, 2);
  const generation = resumed ? newest.generation : newest.generation + 1;
  const topic = generationTopic(spec.name, generation);

  ctx.note(`creating ${topic} with ${partitions} partitions, sealed`);
  await ensureTopics(
    ctx.kafka,
    [{ name: topic, partitions, config: sealedConfig(spec.config) }],
    ctx.replicationFactor,
  );
  await generationsRepository.record(ctx.pool, spec.name, generation, partitions);

  ctx.note(`sealing ${previous.topic}: the broker refuses every write to it from now on`);
  await setTopicLimit(ctx.admin, previous.topic, null);
  await sleep(ctx.sealReachMs);
  ctx.note(`opening ${topic}`);
  await setTopicLimit(ctx.admin, topic, spec.config['max.message.bytes']!);

  const settle = await settleMs(ctx.admin, previous.topic);
  if (settle > 0)
    ctx.note(`waiting ${Math.round(settle / 1000)} s until no end offset of ${previous.topic} can move`);
  await sleep(settle);
  const offsets = await ctx.admin.fetchTopicOffsets(previous.topic);
  const ends = [...offsets].sort((a, b) => a.partition - b.partition).map((p) => BigInt(p.high));
  await generationsRepository.seal(ctx.pool, spec.name, generation, ends);
  const sealed = (await generationsRepository.list(ctx.pool, spec.name, spec.partitions)).find(
    (g) => g.generation === generation,
  )!;
  return {
    generation,
    topic,
    partitions,
    previous: {
      topic: previous.topic,
      partitions: previousPartitions,
      ends: (sealed.previousEnds ?? ends).map(String),
    },
    resumed,
    duration_ms: Date.now() - started,
  };
}

async function partitionCount(admin: Admin, generation: Generation): Promise<number> {
  const metadata = await admin.fetchTopicMetadata({ topics: [generation.topic] });
  return metadata.topics[0]!.partitions.length;
}
