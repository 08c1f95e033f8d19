import type { Kafka } from 'kafkajs';
import { streamRanges, type PartitionRange, type TopicRecord } from '@audit/shared/platform';

export { READER_GROUP_PREFIX, type PartitionRange } from '@audit/shared/platform';

export interface ReadOptions {
  /**
   * The read fails when Kafka delivers nothing for this long, rather than hang on an unreachable broker; a long
   * read that keeps getting records is not cut short.
   */
  idleMs: number;
  /** Called as records arrive: how many of how many. */
  progress?: (read: number, total: number) => void;
}

/**
 * Reads the records of each range, all of them, ordered by topic (in the order of the ranges: a grown audit
 * topic's generations oldest first), then partition and offset.
 */
export async function readRanges(
  kafka: Kafka,
  wanted: readonly PartitionRange[],
  options: ReadOptions,
): Promise<TopicRecord[]> {
  const total = wanted.reduce((sum, r) => sum + Math.max(0, Number(r.to - r.from)), 0);
  const records: TopicRecord[] = [];
  const take = async (batch: TopicRecord[]) => {
    records.push(...batch);
    options.progress?.(records.length, total);
  };
  await streamRanges(kafka, wanted, { take, idleMs: options.idleMs });
  const topicOrder = new Map([...new Set(wanted.map((r) => r.topic))].map((topic, i) => [topic, i]));
  return records.sort(
    (a, b) =>
      topicOrder.get(a.topic)! - topicOrder.get(b.topic)! ||
      a.partition - b.partition ||
      Number(BigInt(a.offset) - BigInt(b.offset)),
  );
}
