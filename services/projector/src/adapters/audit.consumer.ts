import type { Consumer, EachBatchPayload } from 'kafkajs';
import { type GenerationGate } from '@audit/shared/audit-topic';
import { loggableError, sleep, type Logger } from '@audit/shared/platform';
import type { ConsumedRecord } from '../domain/consumed-record.js';
import type { FlushBuffer } from '../domain/flush-buffer.js';
import type { GroupMembership } from './group-membership.js';
import type { TreeAppender } from './tree.appender.js';

const HEARTBEAT_EVERY_MS = 3000;

/**
 * Waits for the sink while keeping the group membership alive. A failed heartbeat (a rebalance) does not abandon
 * the wait: the write in flight must finish before anyone handles these records again. It does stop the write's
 * retries (GroupMembership), so the partitions are released within the rebalance timeout.
 */
async function waitWithHeartbeat<T>(
  done: Promise<T>,
  heartbeat: () => Promise<void>,
  group: GroupMembership,
  log: Logger,
): Promise<T> {
  let settled = false;
  const tracked = done.finally(() => {
    settled = true;
  });
  while (!settled) {
    await Promise.race([tracked.catch(() => undefined), sleep(HEARTBEAT_EVERY_MS)]);
    if (!settled) {
      await heartbeat().catch((err: unknown) => {
        group.heartbeatFailed(err);
        log.warn({ err: loggableError(err) }, 'heartbeat failed while flushing');
      });
    }
  }
  return tracked;
}

/**
 * Sends the partitions just assigned whose trees stand before the group's committed offset back to where the
 * trees stop (docs/integrity.md "Who appends"). A failure only leaves it to the partition's next batch.
 */
async function rewindAfterJoin(
  consumer: Consumer,
  trees: Pick<TreeAppender, 'rewindsAfterJoin'>,
  assignment: Record<string, number[]>,
  logger: Logger,
) {
  try {
    for (const { topic, partition, offset } of await trees.rewindsAfterJoin(assignment)) {
      logger.info({ topic, partition, to: offset }, 'partition read again from where its trees stop');
      consumer.seek({ topic, partition, offset });
    }
  } catch (err) {
    logger.warn({ err: loggableError(err) }, 'trees not compared with the partitions just assigned');
  }
}

export interface ProjectorConsumerOptions {
  consumer: Consumer;
  /** The audit topic's generations. */
  topics: readonly string[];
  /** How many partitions are handled at once: all of them. */
  partitions: number;
  /** Holds a generation's partitions until the group has read the one before up to its seal. */
  gate: Pick<GenerationGate, 'isOpen' | 'whenOpen'>;
  stopping: () => boolean;
  buffer: FlushBuffer<ConsumedRecord>;
  group: GroupMembership;
  trees?: Pick<TreeAppender, 'rewindTo' | 'rewindsAfterJoin' | 'leftBehind'>;
  logger: Logger;
}

/**
 * Offsets are committed per partition only after the write that carried the partition's batch succeeded (its
 * store and, in the live projection, its append to the trees).
 */
export async function runProjectorConsumer(opts: ProjectorConsumerOptions): Promise<void> {
  const { consumer, buffer, group } = opts;
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    group.joined();
    if (opts.trees) void rewindAfterJoin(consumer, opts.trees, e.payload.memberAssignment, opts.logger);
  });
  await consumer.subscribe({ topics: [...opts.topics], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: opts.partitions,
    eachBatch: async ({ batch, heartbeat, pause }: EachBatchPayload) => {
      if (batch.isEmpty()) return;
      const log = opts.logger.child({
        topic: batch.topic,
        partition: batch.partition,
        offset: batch.firstOffset(),
      });
      // A grown topic's new generation waits until this group has read the one before up to its seal, so that a
      // tenant's events keep their order across the two, in the trees and in the store (docs/topic-growth.md).
      // Unknown (Postgres or Kafka not answering) counts as held: the wait below asks again.
      if (!(await opts.gate.isOpen(batch.topic).catch(() => false))) {
        consumer.seek({ topic: batch.topic, partition: batch.partition, offset: batch.firstOffset()! });
        const resume = pause();
        void opts.gate.whenOpen(batch.topic, opts.stopping).then(resume);
        log.info('held until the generation before is read up to its seal');
        return;
      }
      // A partition whose trees lag behind this batch is read again from where they stop (docs/integrity.md
      // "Who appends"): what the projection has already is skipped by id, the trees get every record. Waiting for
      // Postgres keeps the membership alive, and ends once the group took the partition.
      const { trees } = opts;
      const rewindFrom = async () => {
        const to = trees
          ? await waitWithHeartbeat(
              trees.rewindTo(batch.topic, batch.partition, batch.firstOffset()!, () => group.isLost),
              heartbeat,
              group,
              log,
            )
          : null;
        if (to !== null) {
          log.info({ to }, 'partition read again from where its trees stop');
          consumer.seek({ topic: batch.topic, partition: batch.partition, offset: to });
        }
        return to !== null;
      };
      if (await rewindFrom()) return;
      const records: ConsumedRecord[] = batch.messages.map((m) => ({
        topic: batch.topic,
        partition: batch.partition,
        offset: m.offset,
        key: m.key,
        value: m.value,
        headers: m.headers ?? {},
      }));
      await waitWithHeartbeat(buffer.add(records), heartbeat, group, log);
      // The trees' position was moved back while the write ran: not committed, the partition is read again.
      if (trees?.leftBehind(batch.topic, batch.partition) && (await rewindFrom())) return;
      const next = (BigInt(batch.lastOffset()) + 1n).toString();
      await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
    },
  });
}
