import type { IHeaders, Message, Producer } from 'kafkajs';
import { CoalescingSender } from '@audit/shared/platform';
import type { DeadLetter } from '../domain/consumed-record.js';

// Below the topic's 4 MiB max.message.bytes with room for headers: a larger value could never be published.
const MAX_LETTER_VALUE_BYTES = 3 * 1024 * 1024;

/**
 * Key, value and the original headers are kept byte for byte; origin and reason travel in headers. A value too
 * large to republish is left out and named: the record itself stays at its origin offset in the audit topic.
 */
export function deadLetterMessage(letter: DeadLetter, failedAt: number): Message {
  const { record } = letter;
  const oversized = record.value !== null && record.value.length > MAX_LETTER_VALUE_BYTES;
  const headers: IHeaders = {
    ...record.headers,
    'dlq.origin.topic': record.topic,
    'dlq.origin.partition': String(record.partition),
    'dlq.origin.offset': record.offset,
    'dlq.stage': letter.stage,
    'dlq.error': letter.error.slice(0, 4096),
    'dlq.failed_at': String(failedAt),
  };
  if (oversized) headers['dlq.value_omitted_bytes'] = String(record.value!.length);
  return { key: record.key, value: oversized ? null : record.value, headers };
}

export interface DeadLetterPublisher {
  publish(letters: readonly DeadLetter[]): Promise<void>;
}

export function deadLetterPublisher(
  producer: Pick<Producer, 'send'>,
  topic: string,
  clock: () => number,
): DeadLetterPublisher {
  // The projector waits for its dead letters however long Kafka takes: no queue bound, no expiry.
  const sender = new CoalescingSender(producer, topic, { maxQueuedBytes: Infinity, maxWaitMs: Infinity });
  return {
    async publish(letters) {
      if (letters.length > 0) await sender.send(letters.map((l) => deadLetterMessage(l, clock())));
    },
  };
}
