import type { Consumer, EachBatchPayload } from 'kafkajs';
import { loggableError, sleep, type Logger } from '@audit/shared';
import type { ConsumedRecord } from '../domain/consumed-record.js';
import type { FlushBuffer } from '../domain/flush-buffer.js';
import type { GroupMembership } from './group-membership.js';

const HEARTBEAT_EVERY_MS = 3000;

/**
 * Waits for the sink while keeping the group membership alive. A failed heartbeat (a rebalance) does not abandon
 * the wait: the write in flight must finish before anyone handles these records again. It does stop the write's
 * retries (GroupMembership), so the partitions are released within the rebalance timeout.
 */
async function waitWithHeartbeat(
  done: Promise<void>,
  heartbeat: () => Promise<void>,
  group: GroupMembership,
  log: Logger,
) {
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
  await tracked;
}

export interface ProjectorConsumerOptions {
  consumer: Consumer;
  topic: string;
  partitions: number;
  buffer: FlushBuffer<ConsumedRecord>;
  group: GroupMembership;
  logger: Logger;
}

/** Offsets are committed per partition only after the write that carried the partition's batch succeeded. */
export async function runProjectorConsumer(opts: ProjectorConsumerOptions): Promise<void> {
  const { consumer, buffer, group } = opts;
  consumer.on(consumer.events.GROUP_JOIN, () => group.joined());
  await consumer.subscribe({ topic: opts.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: opts.partitions,
    eachBatch: async ({ batch, heartbeat }: EachBatchPayload) => {
      if (batch.isEmpty()) return;
      const log = opts.logger.child({
        topic: batch.topic,
        partition: batch.partition,
        offset: batch.firstOffset(),
      });
      const records: ConsumedRecord[] = batch.messages.map((m) => ({
        topic: batch.topic,
        partition: batch.partition,
        offset: m.offset,
        key: m.key,
        value: m.value,
        headers: m.headers ?? {},
      }));
      await waitWithHeartbeat(buffer.add(records), heartbeat, group, log);
      const next = (BigInt(batch.lastOffset()) + 1n).toString();
      await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
    },
  });
}
