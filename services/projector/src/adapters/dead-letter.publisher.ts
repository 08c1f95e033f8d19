import type { IHeaders, Producer } from 'kafkajs';
import type { DeadLetter } from '../domain/consumed-record.js';

/** Origin and reason travel in headers; key, value and the original headers are kept byte for byte. */
export function deadLetterHeaders(letter: DeadLetter, failedAt: number): IHeaders {
  return {
    ...letter.record.headers,
    'dlq.origin.topic': letter.record.topic,
    'dlq.origin.partition': String(letter.record.partition),
    'dlq.origin.offset': letter.record.offset,
    'dlq.stage': letter.stage,
    'dlq.error': letter.error.slice(0, 4096),
    'dlq.failed_at': String(failedAt),
  };
}

export interface DeadLetterPublisher {
  publish(letters: readonly DeadLetter[]): Promise<void>;
}

export function deadLetterPublisher(
  producer: Pick<Producer, 'send'>,
  topic: string,
  clock: () => number,
): DeadLetterPublisher {
  return {
    async publish(letters) {
      if (letters.length === 0) return;
      await producer.send({
        topic,
        acks: -1,
        messages: letters.map((l) => ({
          key: l.record.key,
          value: l.record.value,
          headers: deadLetterHeaders(l, clock()),
        })),
      });
    },
  };
}
