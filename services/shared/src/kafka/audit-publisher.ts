import type { Message, Producer } from 'kafkajs';
import type { AuditEventRecord } from '../audit-event/audit-event.js';
import { validateBatch } from '../audit-event/ingest-batch.js';
import type { Codec } from '../codec/single-object.codec.js';
import { ValidationError } from '../errors.js';
import type { Clock } from '../time.js';

// Under the topic's max.message.bytes with room for the batch framing.
const MAX_SEND_BYTES = 1024 * 1024;

export interface AuditPublisher {
  /** Publishes already validated records; resolves once Kafka acknowledged every one of them. */
  publishRecords(records: readonly AuditEventRecord[]): Promise<void>;
  /** Validates raw events as ingest does, publishes them, and returns their ids in input order. */
  publish(events: readonly unknown[]): Promise<string[]>;
}

export interface AuditPublisherDeps {
  producer: Pick<Producer, 'send'>;
  topic: string;
  codec: Codec<AuditEventRecord>;
  clock: Clock;
}

function chunkBySize(messages: Message[]): Message[][] {
  const chunks: Message[][] = [];
  let current: Message[] = [];
  let bytes = 0;
  for (const m of messages) {
    const size = (m.value as Buffer).length + 64;
    if (current.length > 0 && bytes + size > MAX_SEND_BYTES) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(m);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export function auditPublisher(deps: AuditPublisherDeps): AuditPublisher {
  const publishRecords = async (records: readonly AuditEventRecord[]) => {
    const messages = records.map((r) => ({ key: r.tenant_id, value: deps.codec.encode(r) }));
    for (const chunk of chunkBySize(messages)) {
      await deps.producer.send({ topic: deps.topic, acks: -1, messages: chunk });
    }
  };
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
