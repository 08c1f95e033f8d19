import type { AuditEventRecord } from '@audit/shared/contract';
import type { ConsumedRecord } from './consumed-record.js';

/** The offsets one topic partition's records of a write span (a write may hold generations of the topic). */
export interface PartitionRun {
  topic: string;
  partition: number;
  first: bigint;
  last: bigint;
}

/** A write's valid events (first occurrences, in consumption order) and the record each came from. */
export interface TreeBatch {
  runs: PartitionRun[];
  events: readonly AuditEventRecord[];
  sources: readonly Pick<ConsumedRecord, 'topic' | 'partition' | 'offset'>[];
}

/** A topic partition as one key: `topic:partition`, as partitionKeys gives them. */
export const runKey = (r: Pick<ConsumedRecord, 'topic' | 'partition'>) => `${r.topic}:${r.partition}`;

/** A partition has no tree position: the trees were not begun over it (tree-appender.begin.ts begins every partition's). */
export class TreeGapError extends Error {
  override name = 'TreeGapError';
}

export function treeBatch(
  records: readonly ConsumedRecord[],
  events: readonly AuditEventRecord[],
  sources: readonly ConsumedRecord[],
): TreeBatch {
  const runs = new Map<string, PartitionRun>();
  for (const r of records) {
    const offset = BigInt(r.offset);
    const run = runs.get(runKey(r));
    if (!run) runs.set(runKey(r), { topic: r.topic, partition: r.partition, first: offset, last: offset });
    else {
      if (offset < run.first) run.first = offset;
      if (offset > run.last) run.last = offset;
    }
  }
  const ordered = [...runs.values()].sort((a, b) =>
    a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
  );
  return { runs: ordered, events, sources };
}

/** A topic partition. */
export type TopicPartition = Pick<PartitionRun, 'topic' | 'partition'>;

/** What a write adds to the trees: its events the trees lack, and the partitions whose trees are behind it. */
export interface TreeAppend {
  events: readonly AuditEventRecord[];
  /** Partitions appended up to an offset before their run: left out, their positions unmoved. */
  behind: TopicPartition[];
}

/**
 * The batch's events the trees do not have yet, given each partition's position (runKey → the next offset to
 * append, docs/integrity.md "Who appends"): those at or after it. A partition whose position lies after its run's
 * first offset had part of the run appended already (a write redone). One whose position lies before it (moved
 * back by an operator since this process last looked) would leave the records between out of the trees: its
 * events are left out, and the partition is read again from its position.
 */
export function eventsToAppend(batch: TreeBatch, positions: ReadonlyMap<string, bigint>): TreeAppend {
  let redone = false;
  const behind = new Set<string>();
  for (const run of batch.runs) {
    const position = positions.get(runKey(run));
    if (position === undefined)
      throw new TreeGapError(`partition ${run.partition} of ${run.topic} has no tree position`);
    if (position < run.first) behind.add(runKey(run));
    else if (position > run.first) redone = true;
  }
  const left = batch.runs
    .filter((r) => behind.has(runKey(r)))
    .map(({ topic, partition }) => ({ topic, partition }));
  // Almost every write begins where its partitions stand: each event's offset is read only for one that does not.
  if (!redone && behind.size === 0) return { events: batch.events, behind: left };
  const events = batch.events.filter((_, i) => {
    const source = batch.sources[i]!;
    const key = runKey(source);
    return !behind.has(key) && BigInt(source.offset) >= positions.get(key)!;
  });
  return { events, behind: left };
}
