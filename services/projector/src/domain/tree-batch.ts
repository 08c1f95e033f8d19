import type { AuditEventRecord } from '@audit/shared';
import type { ConsumedRecord } from './consumed-record.js';

/** The offsets one partition's records of a write span. */
export interface PartitionRun {
  partition: number;
  first: bigint;
  last: bigint;
}

/** A write's valid events (first occurrences, in consumption order) and the record each came from. */
export interface TreeBatch {
  runs: PartitionRun[];
  events: readonly AuditEventRecord[];
  sources: readonly Pick<ConsumedRecord, 'partition' | 'offset'>[];
}

/** A partition has no tree position: the trees were not begun over it (main.ts begins every partition's). */
export class TreeGapError extends Error {
  override name = 'TreeGapError';
}

export function treeBatch(
  records: readonly ConsumedRecord[],
  events: readonly AuditEventRecord[],
  sources: readonly ConsumedRecord[],
): TreeBatch {
  const runs = new Map<number, PartitionRun>();
  for (const r of records) {
    const offset = BigInt(r.offset);
    const run = runs.get(r.partition);
    if (!run) runs.set(r.partition, { partition: r.partition, first: offset, last: offset });
    else {
      if (offset < run.first) run.first = offset;
      if (offset > run.last) run.last = offset;
    }
  }
  return { runs: [...runs.values()].sort((a, b) => a.partition - b.partition), events, sources };
}

/** What a write adds to the trees: its events the trees lack, and the partitions whose trees are behind it. */
export interface TreeAppend {
  events: readonly AuditEventRecord[];
  /** Partitions appended up to an offset before their run: left out, their positions unmoved. */
  behind: number[];
}

/**
 * The batch's events the trees do not have yet, given each partition's position (the next offset to append,
 * docs/integrity.md "Who appends"): those at or after it. A partition whose position lies after its run's first
 * offset had part of the run appended already (a write redone). One whose position lies before it (moved back by
 * an operator since this process last looked) would leave the records between out of the trees: its events are
 * left out, and the partition is read again from its position.
 */
export function eventsToAppend(batch: TreeBatch, positions: ReadonlyMap<number, bigint>): TreeAppend {
  let redone = false;
  const behind: number[] = [];
  for (const run of batch.runs) {
    const position = positions.get(run.partition);
    if (position === undefined) throw new TreeGapError(`partition ${run.partition} has no tree position`);
    if (position < run.first) behind.push(run.partition);
    else if (position > run.first) redone = true;
  }
  // Almost every write begins where its partitions stand: each event's offset is read only for one that does not.
  if (!redone && behind.length === 0) return { events: batch.events, behind };
  const events = batch.events.filter((_, i) => {
    const { partition, offset } = batch.sources[i]!;
    return !behind.includes(partition) && BigInt(offset) >= positions.get(partition)!;
  });
  return { events, behind };
}
