import type { Kafka } from 'kafkajs';
import { type GenerationGate } from '@audit/shared/audit-topic';
import { type AuditEventRecord, type Codec } from '@audit/shared/contract';
import { whenGivenUp, type Logger } from '@audit/shared/platform';
import { type ProjectionTables } from '@audit/shared/projection';
import type { ProjectorConfig } from '../config.js';
import { partitionKeys, type ConsumedRecord } from '../domain/consumed-record.js';
import { FlushBuffer } from '../domain/flush-buffer.js';
import { PartitionLocks } from '../domain/partition-locks.js';
import type { EventSink } from '../domain/store-events.js';
import { runProjectorConsumer } from './audit.consumer.js';
import type { DeadLetterPublisher } from './dead-letter.publisher.js';
import { GroupMembership } from './group-membership.js';
import type { RetentionFilter } from '@audit/shared/retention';
import { retryingFlush, type FlushMeter } from './retrying-flush.js';
import type { TreeAppender } from './tree.appender.js';

// The lock every write takes when one write at a time is wanted.
const ALL_PARTITIONS = '*';

export interface PipelineOptions {
  kafka: Kafka;
  groupId: string;
  /** The audit topic's generations, read in order (docs/topic-growth.md). */
  topics: readonly string[];
  /** Every partition of every generation: how many batches are handled at once. */
  partitions: number;
  /** The group's gate between generations (AuditGenerations.gate). */
  gate: Pick<GenerationGate, 'isOpen' | 'whenOpen'>;
  settings: Pick<
    ProjectorConfig,
    'batchSize' | 'flushMs' | 'flushIdleMs' | 'flushMinIntervalMs' | 'sessionTimeoutMs'
  >;
  codec: Codec<AuditEventRecord>;
  /** Leaves out what a purge removed (docs/retention.md "The purge"). */
  retention: RetentionFilter;
  sink: EventSink;
  deadLetters: DeadLetterPublisher;
  meter: FlushMeter;
  target: <T>(write: (tables: ProjectionTables) => Promise<T>, lost: () => boolean) => Promise<T>;
  /** The live projection's trees (docs/integrity.md "Who appends"); a replay's pipeline has none. */
  trees?: TreeAppender;
  /** Told the consumer's group member id at every join. */
  onJoin?: (memberId: string) => void;
  /**
   * Told when kafkajs has stopped the consumer for good (whenGivenUp): the pipeline would idle.
   */
  onGivenUp?: (err: Error) => void;
  /**
   * One write at a time in this pipeline, whatever its partitions: on a ClickHouse cluster every write is a quorum
   * insert, and two into one table at once fail the second (code 286), which may tear it between the events table
   * and its views (docs/operations.md "Exactly once on a cluster"). The live and a replay pipeline write
   * generations of their own, never one table.
   */
  oneWriteAtATime?: boolean;
  logger: Logger;
}

export interface Pipeline {
  /** Writes what waits, lets the write in flight finish, and leaves the group. */
  stop(): Promise<void>;
}

/**
 * The audit topic into one generation of the projection: a consumer group, batches gathered across partitions,
 * decoded, deduplicated and stored, offsets committed after the store. The live projection runs one; a replay
 * into a new generation runs another, in a group of its own, with the same code.
 */
export async function startPipeline(opts: PipelineOptions): Promise<Pipeline> {
  let stopping = false;
  const group = new GroupMembership(opts.sink);
  const flush = retryingFlush(
    {
      codec: opts.codec,
      retention: opts.retention,
      sink: opts.sink,
      deadLetters: opts.deadLetters,
      settledSinceJoin: () => group.settledSinceJoin(),
      firstSinceJoin: (partitions) => group.firstSinceJoin(partitions),
      shouldStop: () => stopping || group.isLost,
      meter: opts.meter,
      target: opts.target,
      trees: opts.trees,
    },
    opts.logger,
  );
  const locks = new PartitionLocks();
  const buffer = new FlushBuffer<ConsumedRecord>({
    maxItems: opts.settings.batchSize,
    maxDelayMs: opts.settings.flushMs,
    idleMs: opts.settings.flushIdleMs,
    minIntervalMs: opts.settings.flushMinIntervalMs,
    flush: (records) =>
      locks.run(opts.oneWriteAtATime ? [ALL_PARTITIONS] : partitionKeys(records), () => flush(records)),
  });
  const consumer = opts.kafka.consumer({
    groupId: opts.groupId,
    sessionTimeout: opts.settings.sessionTimeoutMs,
    heartbeatInterval: 3000,
    maxBytesPerPartition: 8 * 1024 * 1024,
    // Larger fetches amortize each write's fixed costs (lookup, insert round trip, commit) over more records.
    maxBytes: 32 * 1024 * 1024,
    maxWaitTimeInMs: 100,
  });
  const { onJoin, onGivenUp } = opts;
  if (onJoin) consumer.on(consumer.events.GROUP_JOIN, (e) => onJoin(e.payload.memberId));
  if (onGivenUp) whenGivenUp(consumer, onGivenUp, () => stopping);
  await consumer.connect();
  await runProjectorConsumer({
    consumer,
    topics: opts.topics,
    partitions: opts.partitions,
    gate: opts.gate,
    stopping: () => stopping,
    buffer,
    group,
    trees: opts.trees,
    logger: opts.logger,
  });
  return {
    async stop() {
      stopping = true;
      buffer.flushNow();
      await consumer.disconnect();
    },
  };
}
