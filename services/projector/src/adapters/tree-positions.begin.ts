import type { Admin } from 'kafkajs';
import type { TreePositions } from './tree-positions.repository.js';

/**
 * Gives every partition without a tree position its first one: where the notary of before migration 0021 had
 * appended up to (its consumer group's committed offset), or else the oldest record the topic keeps, so that the
 * trees begin with the topic's history as a fresh notary's did (docs/integrity.md "Who appends"). The notary's
 * offset matters only once, to a deployment upgraded past migration 0021 whose partitions have no position yet:
 * once every deployment has started such a projector, it can go, with `PROJECTOR_TREES_NOTARY_GROUP_ID`.
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
