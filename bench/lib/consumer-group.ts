// Where consumer groups of the audit topic stand, for the benchmarks: a topic's end, a new group started at a
// given place, and a group done with the records up to a given place.
import type { Admin, Kafka } from 'kafkajs';
import { sleep } from '@audit/shared/platform';
import { committedThrough } from '../../test/support/kafka-offsets.js';

/** Runs `work` with a connected admin client, disconnected after. */
async function withAdmin<T>(kafka: Kafka, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}

/** The topic's end offset per partition: where the next record of each will be. */
export const topicEnds = (kafka: Kafka, topic: string) =>
  withAdmin(kafka, async (admin) =>
    (await admin.fetchTopicOffsets(topic)).map((o) => ({ partition: o.partition, offset: o.high })),
  );

/**
 * Commits a new consumer group's offsets before any member joins: a notary started in it reads from there, not
 * from the topic's beginning (which holds the earlier runs' events).
 */
export const startGroupAt = (
  kafka: Kafka,
  groupId: string,
  topic: string,
  partitions: { partition: number; offset: string }[],
) => withAdmin(kafka, (admin) => admin.setOffsets({ groupId, topic, partitions }));

/**
 * Until the group has committed its offsets up to `ends` (one admin client for every poll). Kafka answers this at little cost, where counting a
 * run's rows in ClickHouse takes it milliseconds each time: polled every 20 ms through a whole run, the counting
 * charged a run more the longer it took, and slowed it.
 */
export async function committedTo(
  kafka: Kafka,
  groupId: string,
  topic: string,
  ends: { partition: number; offset: string }[],
  everyMs: number,
) {
  await withAdmin(kafka, async (admin) => {
    for (;;) {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      if (committedThrough(ends, committed)) return;
      await sleep(everyMs);
    }
  });
}
