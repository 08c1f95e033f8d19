import type { Admin } from 'kafkajs';
import type { TreePositions } from './tree-positions.repository.js';

/**
 * Gives every partition without a tree position its first one: where the notary of before migration 0021 had
 * appended up to (its consumer group's committed offset), or else the oldest record the topic keeps, so that the
 * trees begin with the topic's history as a fresh notary's did (docs/integrity.md "Who appends").
 */
export async function beginTreePositions(
  admin: Pick<Admin, 'fetchOffsets' | 'fetchTopicOffsets'>,
  positions: Pick<TreePositions, 'begin'>,
  topic: string,
  partitions: number,
  notaryGroupId: string,
): Promise<void> {
  const [committed] = await admin.fetchOffsets({ groupId: notaryGroupId, topics: [topic] });
  const offsets = await admin.fetchTopicOffsets(topic);
  const starts = new Map<number, string>();
  for (let partition = 0; partition < partitions; partition++) {
    const notary = committed?.partitions.find((p) => p.partition === partition)?.offset;
    const low = offsets.find((p) => p.partition === partition)?.low ?? '0';
    starts.set(partition, notary !== undefined && Number(notary) >= 0 ? notary : low);
  }
  await positions.begin(starts);
}
