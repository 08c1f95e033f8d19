import type { Producer } from 'kafkajs';
import type { AuditEventRecord } from '../contract/audit-event/audit-event.js';
import { validateBatch } from '../contract/audit-event/ingest-batch.js';
import type { Codec } from '../contract/codec/single-object.codec.js';
import { ValidationError } from '../platform/errors.js';
import type { Clock } from '../contract/time.js';
import type { TopicRoute } from '../platform/kafka/coalescing-sender.js';
import { CoalescingSender, type CoalescingSenderOptions } from '../platform/kafka/coalescing-sender.js';

export interface AuditPublisher {
  /** Publishes already validated records; resolves once Kafka acknowledged every one of them. */
  publishRecords(records: readonly AuditEventRecord[]): Promise<void>;
  /** Validates raw events as ingest does, publishes them, and returns their ids in input order. */
  publish(events: readonly unknown[]): Promise<string[]>;
}

export interface AuditPublisherDeps {
  producer: Pick<Producer, 'send'>;
  /** The audit topic's writable generation (AuditTopicRoute), or a fixed topic. */
  topic: string | TopicRoute;
  codec: Codec<AuditEventRecord>;
  clock: Clock;
  /** Bounds on what waits for Kafka (see CoalescingSender); defaults suit a command-line tool. */
  queue?: CoalescingSenderOptions;
}

const DEFAULT_QUEUE: CoalescingSenderOptions = { maxQueuedBytes: 64 * 1024 * 1024, maxWaitMs: 30_000 };

export function auditPublisher(deps: AuditPublisherDeps): AuditPublisher {
  const sender = new CoalescingSender(deps.producer, deps.topic, deps.queue ?? DEFAULT_QUEUE);
  const publishRecords = (records: readonly AuditEventRecord[]) =>
    sender.send(records.map((r) => ({ key: r.tenant_id, value: deps.codec.encode(r) })));
  return {
    publishRecords,
    async publish(events) {
      const result = validateBatch(events, { clock: deps.clock });
      if (!result.ok)
        throw new ValidationError('One or more events are invalid; nothing was published.', result.errors);
      await publishRecords(result.records);
      return result.records.map((r) => r.event_id);
    },
  };
}
