import type { Kafka } from 'kafkajs';
import { waitFor } from './wait-for.js';

export interface ReadLetter {
  value: Buffer | null;
  headers: Record<string, string>;
}

/** The first `count` records of a dead-letter topic, headers as text, read by a consumer group of the test's. */
export async function readDeadLetters(kafka: Kafka, topic: string, groupId: string, count: number) {
  const letters: ReadLetter[] = [];
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const headers = Object.fromEntries(
          Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]),
        );
        letters.push({ value: message.value, headers });
      },
    });
    await waitFor(`${count} dead letters`, async () => letters.length >= count);
  } finally {
    await consumer.disconnect();
  }
  return letters;
}
