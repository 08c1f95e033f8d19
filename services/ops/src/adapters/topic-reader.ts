import { randomUUID } from 'node:crypto';
import type { IHeaders, Kafka } from 'kafkajs';
import { withDeadline } from '@audit/shared';
import type { TopicRecord } from '../domain/dead-letter.js';

/** Records [from, to) of one partition. */
export interface PartitionRange {
  topic: string;
  partition: number;
  from: bigint;
  to: bigint;
}

export interface ReadOptions {
  /** The whole read; past it the read fails rather than hang on an unreachable broker. */
  deadlineMs: number;
  /** Called as records arrive: how many of how many. */
  progress?: (read: number, total: number) => void;
}

/** Groups of ours made only to read; deleted afterwards, and left out of `lag`. */
export const READER_GROUP_PREFIX = 'ops-reader-';

const text = (value: IHeaders[string]) => (Array.isArray(value) ? value[0] : value)?.toString() ?? '';

/**
 * Reads the records of each range (kafkajs has no plain fetch: a consumer of a throwaway group seeks to each
 * range's start and stops at its end). Records come back ordered by partition and offset.
 */
export async function readRanges(
  kafka: Kafka,
  wanted: readonly PartitionRange[],
  options: ReadOptions,
): Promise<TopicRecord[]> {
  const ranges = wanted.filter((r) => r.to > r.from);
  if (ranges.length === 0) return [];
  const total = ranges.reduce((sum, r) => sum + Number(r.to - r.from), 0);
  const byKey = new Map(ranges.map((r) => [`${r.topic}:${r.partition}`, { ...r, done: false }]));
  const records: TopicRecord[] = [];
  const groupId = `${READER_GROUP_PREFIX}${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100, allowAutoTopicCreation: false });
  let finished!: () => void;
  const allRead = new Promise<void>((resolve) => (finished = resolve));
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...new Set(ranges.map((r) => r.topic))], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const range = byKey.get(`${batch.topic}:${batch.partition}`);
        if (!range || range.done) return;
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
        const last = BigInt(batch.lastOffset());
        if (last + 1n >= range.to) range.done = true;
        options.progress?.(records.length, total);
        if ([...byKey.values()].every((r) => r.done)) finished();
      },
    });
    for (const r of ranges) consumer.seek({ topic: r.topic, partition: r.partition, offset: String(r.from) });
    await withDeadline(
      allRead,
      options.deadlineMs,
      () => new Error('Kafka did not deliver the records in time'),
    );
  } finally {
    await consumer.disconnect().catch(() => undefined);
    await deleteGroup(kafka, groupId);
  }
  return records.sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
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
