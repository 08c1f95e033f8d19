import type { Kafka } from 'kafkajs';
import { sleep } from '@audit/shared/platform';

/**
 * Sum of end offsets of a topic: grows by one for every record that reached Kafka. A topic just created (or a
 * broker just restarted) may still be electing its partitions' leaders: such an answer is asked again.
 */
export async function topicEndOffset(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const offsets = await admin.fetchTopicOffsets(topic);
        return offsets.reduce((sum, p) => sum + Number(p.high), 0);
      } catch (err) {
        if (!(err as { retriable?: boolean }).retriable || attempt >= 20) throw err;
        await sleep(500);
      }
    }
  } finally {
    await admin.disconnect();
  }
}

/**
 * Whether a group's committed offsets reach every partition's end. A partition no record ever reached has nothing
 * to commit (kafkajs answers '-1' for a partition without an offset).
 */
export function committedThrough(
  ends: readonly { partition: number; offset: string }[],
  committed: { partitions: { partition: number; offset: string }[] } | undefined,
): boolean {
  return ends.every((end) => {
    const c = committed?.partitions.find((p) => p.partition === end.partition);
    return end.offset === '0' || BigInt(c?.offset ?? -1) >= BigInt(end.offset);
  });
}

/** True once the group has committed every record of the topic. */
export async function groupCaughtUp(kafka: Kafka, groupId: string, topic: string): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return committedThrough(
      ends.map((e) => ({ partition: e.partition, offset: e.high })),
      committed,
    );
  } finally {
    await admin.disconnect();
  }
}
