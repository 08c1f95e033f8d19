import type { Admin } from 'kafkajs';
import type pg from 'pg';
import { loggableError, retryWithBackoff, type Logger } from '@audit/shared/platform';
import { runKey, TreeGapError, type TreeBatch } from '../domain/tree-batch.js';
import { checkPartition } from './partition-guard.js';
import { treePositions } from './tree-positions.repository.js';
import { appendToTrees, type AppendOutcome } from './trees.repository.js';

/** What the appender tells its metrics (projector.metrics.ts). */
export interface TreeMeter {
  appended(outcome: AppendOutcome & { seconds: number }): void;
}

/** A topic partition and an offset in it. */
export interface PartitionOffset {
  topic: string;
  partition: number;
  offset: string;
}

/** The live projection's second sink: the tenants' trees in Postgres (docs/integrity.md "Who appends"). */
export interface TreeAppender {
  /**
   * Null when a partition's batch that begins at `first` may go into a write; otherwise the offset the partition
   * must be read from again, so that no record is left out of the trees.
   */
  rewindTo(topic: string, partition: number, first: string, lost?: () => boolean): Promise<string | null>;
  /** Whether the partition's trees were behind the last write that held it (and forgets it). */
  leftBehind(topic: string, partition: number): boolean;
  /**
   * For partitions just assigned (topic → partitions): where each must be read from again because its trees
   * stand before the group's committed offset (trees turned on, positions moved back), so that a partition without
   * new records catches up too.
   */
  rewindsAfterJoin(assignment: Readonly<Record<string, readonly number[]>>): Promise<PartitionOffset[]>;
  append(batch: TreeBatch): Promise<AppendOutcome>;
}

export interface TreeAppenderOptions {
  pool: pg.Pool;
  admin: Pick<Admin, 'fetchTopicOffsets' | 'fetchOffsets'>;
  /**
   * The partition count a generation of the audit topic had when its trees were begun over it (partition-guard.ts),
   * its partitions given their first positions on the first call; undefined for a topic that is no generation.
   */
  begin: (topic: string) => Promise<number | undefined>;
  /** The live projection's consumer group, whose committed offsets the positions are compared with. */
  groupId: string;
  meter: TreeMeter;
  /** Told when the topic can no longer be appended from: the process stops. */
  fatal: (err: Error) => never;
  stopping: () => boolean;
  logger: Logger;
}

export function treeAppender(opts: TreeAppenderOptions): TreeAppender {
  const behind = new Set<string>();
  const begun = new Map<string, number>();
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
  const appender: TreeAppender = {
    async rewindTo(topic, partition, first, lost) {
      if (!begun.has(topic)) {
        const recorded = await retried(() => opts.begin(topic), lost);
        if (recorded === undefined)
          return opts.fatal(new TreeGapError(`${topic} is no generation of the audit topic`));
        begun.set(topic, recorded);
      }
      try {
        checkPartition(topic, partition, begun.get(topic)!);
      } catch (err) {
        return opts.fatal(err as Error);
      }
      const position = await retried(() => treePositions(opts.pool, topic).of(partition), lost);
      if (position === null)
        return opts.fatal(new TreeGapError(`partition ${partition} of ${topic} has no tree position`));
      if (position >= BigInt(first)) return null;
      const low = (await retried(() => opts.admin.fetchTopicOffsets(topic), lost)).find(
        (p) => p.partition === partition,
      )?.low;
      if (low !== undefined && position < BigInt(low))
        return opts.fatal(
          new TreeGapError(
            `partition ${partition} of ${topic} is appended to the trees up to offset ${position}, and the ` +
              `topic keeps records from ${low} on only: see docs/operations.md "Integrity"`,
          ),
        );
      return position.toString();
    },
    leftBehind: (topic, partition) => behind.delete(runKey({ topic, partition })),
    async rewindsAfterJoin(assignment) {
      const rewinds: PartitionOffset[] = [];
      for (const [topic, partitions] of Object.entries(assignment)) {
        if (partitions.length === 0) continue;
        const [committed] = await retried(() =>
          opts.admin.fetchOffsets({ groupId: opts.groupId, topics: [topic] }),
        );
        for (const partition of partitions) {
          const offset = committed?.partitions.find((p) => p.partition === partition)?.offset;
          // No committed offset: the group reads the partition from its oldest record, never past a position.
          if (offset === undefined || Number(offset) < 0) continue;
          const rewind = await appender.rewindTo(topic, partition, offset);
          if (rewind !== null) rewinds.push({ topic, partition, offset: rewind });
        }
      }
      return rewinds;
    },
    async append(batch) {
      const started = performance.now();
      const outcome = await appendToTrees(opts.pool, batch);
      // Moved back by an operator since its batch was checked: the batch is not committed but read again.
      for (const left of outcome.behind) {
        behind.add(runKey(left));
        opts.logger.warn(left, 'trees behind the partition: it is read again');
      }
      opts.meter.appended({ ...outcome, seconds: (performance.now() - started) / 1000 });
      return outcome;
    },
  };
  return appender;
}
