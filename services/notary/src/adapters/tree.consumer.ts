import type { Consumer } from 'kafkajs';
import type pg from 'pg';
import {
  decodeAuditRecord,
  loggableError,
  retryWithBackoff,
  type AuditEventRecord,
  type Codec,
  type Logger,
} from '@audit/shared';
import { checkPartition } from './partition-guard.js';
import type { TreeMeter } from './notary.metrics.js';
import { appendToTrees } from './trees.repository.js';

export interface TreeConsumerOptions {
  consumer: Consumer;
  topic: string;
  /** The partition count the trees were begun over (partition-guard.ts). */
  partitions: number;
  codec: Codec<AuditEventRecord>;
  pool: pg.Pool;
  meter: TreeMeter;
  /** True once shutting down: an append failing then is given up, its batch left uncommitted. */
  stopping: () => boolean;
  /** Told when the topic can no longer be appended from: the process stops. */
  fatal: (err: Error) => void;
  logger: Logger;
}

/**
 * The audit topic into its tenants' trees: each partition's batch appended in offset order, in one transaction,
 * retried until Postgres takes it (an outage must not skip a leaf, nor let a later batch go first), and its offset
 * committed after. A batch redone after a crash adds nothing (appendToTrees).
 */
export async function runTreeConsumer(opts: TreeConsumerOptions): Promise<void> {
  const { consumer } = opts;
  await consumer.subscribe({ topic: opts.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: opts.partitions,
    eachBatch: async ({ batch, heartbeat, pause }) => {
      if (batch.isEmpty()) return;
      try {
        checkPartition(batch.topic, batch.partition, opts.partitions);
      } catch (err) {
        pause();
        opts.fatal(err as Error);
        return;
      }
      const log = opts.logger.child({ topic: batch.topic, partition: batch.partition });
      const events = batch.messages
        .map((m) => decodeAuditRecord(opts.codec, m.value))
        .filter((e): e is AuditEventRecord => e !== null);
      const started = performance.now();
      const outcome = await retryWithBackoff(() => appendToTrees(opts.pool, events), {
        firstDelayMs: 200,
        maxDelayMs: 10_000,
        stopping: opts.stopping,
        failed: (err, attempt, backoffMs) => {
          log.warn(
            { err: loggableError(err), attempt, backoffMs },
            'append failed; partition held until it succeeds',
          );
          // Waiting out an outage keeps the partition: a heartbeat between tries (a failed one means a rebalance).
          void heartbeat().catch(() => undefined);
        },
      });
      opts.meter.appended({
        ...outcome,
        records: batch.messages.length,
        seconds: (performance.now() - started) / 1000,
      });
      const next = (BigInt(batch.lastOffset()) + 1n).toString();
      await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
    },
  });
}
