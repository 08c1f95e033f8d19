import { partitionLag } from '@audit/shared/platform';

/** Where a group stands on one partition, as Kafka reports it (offsets as decimal strings, -1 for none). */
export interface GroupOffsets {
  groupId: string;
  topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
}

/** A topic's partitions: first offset still kept (low) and the next offset to be written (high). */
export interface TopicOffsets {
  topic: string;
  partitions: { partition: number; low: string; high: string }[];
}

export interface LagRow {
  group: string;
  topic: string;
  partition: number;
  /** The next offset the group will read; null when it never committed on this partition. */
  committed: string | null;
  end: string;
  /** Records not yet processed: from the committed offset (or the first kept one) to the end. */
  lag: number;
  /** Where the oldest unprocessed record is, when there is one. */
  oldest: string | null;
}

/**
 * One row per partition of every topic a group has committed on: a group that never committed on a topic is not
 * its consumer and gets no rows for it.
 */
export function lagRows(groups: readonly GroupOffsets[], ends: readonly TopicOffsets[]): LagRow[] {
  const byTopic = new Map(ends.map((t) => [t.topic, new Map(t.partitions.map((p) => [p.partition, p]))]));
  const rows: LagRow[] = [];
  for (const group of groups) {
    for (const { topic, partitions } of group.topics) {
      const known = byTopic.get(topic);
      if (!known || partitions.every((p) => p.offset === '-1')) continue;
      for (const { partition, offset } of [...partitions].sort((a, b) => a.partition - b.partition)) {
        const range = known.get(partition);
        if (!range) continue;
        const committed = offset === '-1' ? null : offset;
        // A committed offset below the first kept record (retention removed them) reads from the first kept one.
        const from = committed === null || BigInt(committed) < BigInt(range.low) ? range.low : committed;
        const lag = partitionLag(range, committed ?? undefined);
        rows.push({
          group: group.groupId,
          topic,
          partition,
          committed,
          end: range.high,
          lag,
          oldest: lag > 0 ? from : null,
        });
      }
    }
  }
  return rows;
}
