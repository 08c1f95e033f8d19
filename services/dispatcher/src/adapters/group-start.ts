import type { Admin } from 'kafkajs';
import type { Logger } from '@audit/shared';

/**
 * A dispatcher group that has never committed starts at the topic's current end: history written before any
 * dispatcher ran is not pushed to today's endpoints. Done by committing explicitly before joining, so no event
 * written after the service reported ready can fall in the gap a lazy "latest" would leave.
 */
export async function startNewGroupAtEnd(admin: Admin, groupId: string, topic: string, log: Logger) {
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const unset = (committed?.partitions ?? []).filter((p) => p.offset === '-1').map((p) => p.partition);
  if (unset.length === 0) return;
  const ends = await admin.fetchTopicOffsets(topic);
  const partitions = ends
    .filter((e) => unset.includes(e.partition))
    .map((e) => ({ partition: e.partition, offset: e.high }));
  try {
    await admin.setOffsets({ groupId, topic, partitions });
  } catch (err) {
    // Another instance started the same new group first: it is running, and its start point holds for all.
    log.info(
      { group: groupId, err: (err as Error).message },
      'new group already started by another instance',
    );
    return;
  }
  log.info(
    { group: groupId, topic, partitions: partitions.length },
    'new consumer group starts at the end of the topic',
  );
}
