import type { Admin } from 'kafkajs';
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import { scrapeCache } from './scrape-cache.js';

export interface GroupTopics {
  groupId: string;
  topics: readonly string[];
}

export interface PartitionLag {
  group: string;
  topic: string;
  partition: number;
  lag: number;
}

/**
 * Records of a partition the group has yet to handle. Without a committed offset (`-1`), or with one below what the
 * topic still holds, the group starts at the earliest record retained: every retained record is pending.
 */
export function partitionLag(end: { high: string; low: string }, committed: string | undefined): number {
  const high = Number(end.high);
  const low = Number(end.low);
  const from = committed === undefined || Number(committed) < low ? low : Number(committed);
  return Math.max(0, high - from);
}

/** Lag of every partition of the groups' topics: one end-offset call per topic, one committed-offset call per group. */
export async function fetchConsumerLag(
  admin: Pick<Admin, 'fetchTopicOffsets' | 'fetchOffsets'>,
  groups: readonly GroupTopics[],
): Promise<PartitionLag[]> {
  const topics = [...new Set(groups.flatMap((g) => g.topics))];
  const ends = new Map(
    await Promise.all(topics.map(async (t) => [t, await admin.fetchTopicOffsets(t)] as const)),
  );
  const perGroup = await Promise.all(
    groups.map(async ({ groupId, topics: groupTopics }) => {
      const committed = await admin.fetchOffsets({ groupId, topics: [...groupTopics] });
      return groupTopics.flatMap((topic) => {
        const offsets = committed.find((c) => c.topic === topic)?.partitions ?? [];
        const partitions = [...(ends.get(topic) ?? [])].sort((a, b) => a.partition - b.partition);
        return partitions.map((end) => ({
          group: groupId,
          topic,
          partition: end.partition,
          lag: partitionLag(end, offsets.find((p) => p.partition === end.partition)?.offset),
        }));
      });
    }),
  );
  return perGroup.flat();
}

/** The lag of every partition, or null when Kafka did not answer in time. */
export type LagSource = () => Promise<PartitionLag[] | null>;

/**
 * The groups' lag for scrapes: Kafka is asked at most once a second, and a scrape waits for it at most a second
 * (a scrape during a Kafka outage answers at once, without these series).
 */
export function consumerLagSource(
  admin: Pick<Admin, 'fetchTopicOffsets' | 'fetchOffsets'>,
  /** The groups and their topics, or a function giving them at each scrape (the audit topic may grow). */
  groups: readonly GroupTopics[] | (() => readonly GroupTopics[]),
  logger: Logger,
): LagSource {
  const current = typeof groups === 'function' ? groups : () => groups;
  return scrapeCache<PartitionLag[] | null>(() => fetchConsumerLag(admin, current()), null, {
    ttlMs: 1000,
    deadlineMs: 1000,
    clock: Date.now,
    logger,
  });
}

/** `kafka_consumer_lag`, computed when scraped; `source` bounds and caches the Kafka calls (scrapeCache). */
export function registerConsumerLag(registry: Registry, source: LagSource): void {
  new Gauge({
    name: 'kafka_consumer_lag',
    help: 'Records of a partition its consumer group has not committed yet (end offset minus committed offset)',
    labelNames: ['group', 'topic', 'partition'],
    registers: [registry],
    async collect() {
      const rows = await source();
      // Series of partitions that were not answered this time must not linger with their old value.
      this.reset();
      for (const row of rows ?? []) {
        this.set({ group: row.group, topic: row.topic, partition: String(row.partition) }, row.lag);
      }
    },
  });
}
