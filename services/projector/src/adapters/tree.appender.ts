import type { Admin } from 'kafkajs';
import type pg from 'pg';
import { loggableError, retryWithBackoff, type Logger } from '@audit/shared';
import { TreeGapError, type TreeBatch } from '../domain/tree-batch.js';
import { checkPartition } from './partition-guard.js';
import type { TreeMeter } from './projector.metrics.js';
import { treePositions } from './tree-positions.repository.js';
import { appendToTrees, type AppendOutcome } from './trees.repository.js';

/** The live projection's second sink: the tenants' trees in Postgres (docs/integrity.md "Who appends"). */
export interface TreeAppender {
  /**
   * Null when a partition's batch that begins at `first` may go into a write; otherwise the offset the partition
   * must be read from again, so that no record is left out of the trees.
   */
  rewindTo(partition: number, first: string, lost?: () => boolean): Promise<string | null>;
  /** Whether the partition's trees were behind the last write that held it (and forgets it). */
  leftBehind(partition: number): boolean;
  /**
   * For partitions just assigned: where each must be read from again because its trees stand before the group's
   * committed offset (trees turned on, positions moved back), so that a partition without new records catches up
   * too.
   */
  rewindsAfterJoin(partitions: readonly number[]): Promise<{ partition: number; offset: string }[]>;
  append(batch: TreeBatch): Promise<AppendOutcome>;
}

export interface TreeAppenderOptions {
  pool: pg.Pool;
  admin: Pick<Admin, 'fetchTopicOffsets' | 'fetchOffsets'>;
  topic: string;
  /** The live projection's consumer group, whose committed offsets the positions are compared with. */
  groupId: string;
  /** The partition count the trees were begun over (partition-guard.ts). */
  partitions: number;
  meter: TreeMeter;
  /** Told when the topic can no longer be appended from: the process stops. */
  fatal: (err: Error) => never;
  stopping: () => boolean;
  logger: Logger;
}

export function treeAppender(opts: TreeAppenderOptions): TreeAppender {
  const positions = treePositions(opts.pool, opts.topic);
  const behind = new Set<number>();
  const retried = <T>(step: () => Promise<T>, lost = () => false) =>
    retryWithBackoff(step, {
      firstDelayMs: 200,
      maxDelayMs: 10_000,
      stopping: () => opts.stopping() || lost(),
      failed: (err, attempt, backoffMs) =>
        opts.logger.warn(
          { err: loggableError(err), attempt, backoffMs },
          'tree position unreadable; partition held',
        ),
    });
  return {
    async rewindTo(partition, first, lost) {
      try {
        checkPartition(opts.topic, partition, opts.partitions);
      } catch (err) {
        return opts.fatal(err as Error);
      }
      const position = await retried(() => positions.of(partition), lost);
      if (position === null)
        return opts.fatal(new TreeGapError(`partition ${partition} has no tree position`));
      if (position >= BigInt(first)) return null;
      const low = (await retried(() => opts.admin.fetchTopicOffsets(opts.topic), lost)).find(
        (p) => p.partition === partition,
      )?.low;
      if (low !== undefined && position < BigInt(low))
        return opts.fatal(
          new TreeGapError(
            `partition ${partition} of ${opts.topic} is appended to the trees up to offset ${position}, and the ` +
              `topic keeps records from ${low} on only: see docs/operations.md "Integrity"`,
          ),
        );
      return position.toString();
    },
    leftBehind: (partition) => behind.delete(partition),
    async rewindsAfterJoin(partitions) {
      if (partitions.length === 0) return [];
      const [committed] = await retried(() =>
        opts.admin.fetchOffsets({ groupId: opts.groupId, topics: [opts.topic] }),
      );
      const rewinds: { partition: number; offset: string }[] = [];
      for (const partition of partitions) {
        const offset = committed?.partitions.find((p) => p.partition === partition)?.offset;
        // No committed offset: the group reads the partition from its oldest record, never past a position.
        if (offset === undefined || Number(offset) < 0) continue;
        const rewind = await this.rewindTo(partition, offset);
        if (rewind !== null) rewinds.push({ partition, offset: rewind });
      }
      return rewinds;
    },
    async append(batch) {
      const started = performance.now();
      const outcome = await appendToTrees(opts.pool, opts.topic, batch);
      // Moved back by an operator since its batch was checked: the batch is not committed but read again.
      for (const partition of outcome.behind) {
        behind.add(partition);
        opts.logger.warn({ partition }, 'trees behind the partition: it is read again');
      }
      opts.meter.appended({ ...outcome, seconds: (performance.now() - started) / 1000 });
      return outcome;
    },
  };
}
