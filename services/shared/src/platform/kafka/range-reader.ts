import { randomUUID } from 'node:crypto';
import type { IHeaders, Kafka } from 'kafkajs';
import { sleep } from '../deadline.js';

/** Records [from, to) of one partition. */
export interface PartitionRange {
  topic: string;
  partition: number;
  from: bigint;
  to: bigint;
}

/** A record as read, headers as text. */
export interface TopicRecord {
  topic: string;
  partition: number;
  offset: string;
  /** Epoch ms the broker stamped. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, string>;
}

export interface StreamOptions {
  /** Takes a batch of one partition's records, in offset order; the partition's next batch waits for it. */
  take: (records: TopicRecord[], heartbeat: () => Promise<void>) => Promise<void>;
  /**
   * Fails the read when Kafka delivered nothing for this long: an unreachable broker never hangs it. Time spent
   * in `take` (a paced caller) does not count.
   */
  idleMs: number;
  /** Ends the read at once when aborted, failing it with the signal's reason. */
  signal?: AbortSignal;
}

/** Groups made only to read ranges: deleted afterwards, and left out of `ops lag`. */
export const READER_GROUP_PREFIX = 'ops-reader-';

const text = (value: IHeaders[string]) => (Array.isArray(value) ? value[0] : value)?.toString() ?? '';

/**
 * Reads the records of each range, batch by batch (kafkajs has no plain fetch: a consumer of a throwaway group
 * seeks to each range's start and stops at its end), and hands them to `take` as they come. Resolves once every
 * range is read and taken.
 */
export async function streamRanges(
  kafka: Kafka,
  wanted: readonly PartitionRange[],
  options: StreamOptions,
): Promise<void> {
  const ranges = wanted.filter((r) => r.to > r.from);
  if (ranges.length === 0) return;
  const byKey = new Map(ranges.map((r) => [`${r.topic}:${r.partition}`, { ...r, done: false }]));
  const groupId = `${READER_GROUP_PREFIX}${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, allowAutoTopicCreation: false });
  let lastProgress = Date.now();
  let taking = false;
  let failure: unknown = null;
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...new Set(ranges.map((r) => r.topic))], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat }) => {
        const range = byKey.get(`${batch.topic}:${batch.partition}`);
        if (!range || range.done || failure) return;
        const records: TopicRecord[] = [];
        for (const m of batch.messages) {
          const offset = BigInt(m.offset);
          // A fetch begun before the seek took effect starts earlier: skip up to the range.
          if (offset < range.from) continue;
          if (offset >= range.to) break;
          records.push({
            topic: batch.topic,
            partition: batch.partition,
            offset: m.offset,
            timestamp: Number(m.timestamp),
            key: m.key,
            value: m.value,
            headers: Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, text(v)])),
          });
        }
        taking = true;
        try {
          if (records.length > 0) await options.take(records, heartbeat);
        } catch (err) {
          failure = err;
          return;
        } finally {
          taking = false;
          lastProgress = Date.now();
        }
        if (BigInt(batch.lastOffset()) + 1n >= range.to) range.done = true;
      },
    });
    for (const r of ranges) consumer.seek({ topic: r.topic, partition: r.partition, offset: String(r.from) });
    while (![...byKey.values()].every((r) => r.done)) {
      if (failure) throw failure;
      options.signal?.throwIfAborted();
      if (!taking && Date.now() - lastProgress > options.idleMs)
        throw new Error('Kafka did not deliver the records in time');
      await sleep(50);
    }
    if (failure) throw failure;
  } finally {
    await consumer.disconnect().catch(() => undefined);
    await deleteGroup(kafka, groupId);
  }
}

async function deleteGroup(kafka: Kafka, groupId: string): Promise<void> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.deleteGroups([groupId]);
  } catch {
    // A group that never committed may be gone already; an empty leftover group expires on its own.
  } finally {
    await admin.disconnect();
  }
}
