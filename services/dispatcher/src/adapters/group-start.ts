import type { Admin } from 'kafkajs';
import type { Logger } from '@audit/shared/platform';

/**
 * A dispatcher group that has never committed starts at the current end of every generation of the audit topic:
 * history written before any dispatcher ran is not pushed to today's endpoints. Done by committing explicitly
 * before joining, so no event written after the service reported ready can fall in the gap a lazy "latest" would
 * leave; for the same reason a partition of the first generation without a commit starts at its end. A group that
 * has committed reads a later generation from its beginning (subscribed from the beginning, dispatcher.service.ts): the topic
 * grew while the group ran.
 */
export async function startNewGroupAtEnd(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
  log: Logger,
) {
  const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
  const fresh = committed.every((t) => t.partitions.every((p) => p.offset === '-1'));
  for (const { topic, partitions: offsets } of committed) {
    if (!fresh && topic !== topics[0]) continue;
    const unset = offsets.filter((p) => p.offset === '-1').map((p) => p.partition);
    if (unset.length === 0) continue;
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
      'consumer group starts at the end of the topic',
    );
  }
}
