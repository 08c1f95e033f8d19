import type pg from 'pg';

/** The audit topic does not have the partition count its trees were begun over (docs/integrity.md "Leaf order"). */
export class PartitionCountChangedError extends Error {
  override name = 'PartitionCountChangedError';
}

const refusal = (topic: string, recorded: number, now: number) =>
  new PartitionCountChangedError(
    `the audit topic ${topic} has ${now} partitions, its trees were begun over ${recorded}: tenants would move ` +
      'between partitions and their leaves lose their order; see docs/operations.md "Integrity"',
  );

/**
 * Records the topic's partition count the first time, and refuses any other count after that. Returns the count
 * every batch is then checked against.
 */
export async function guardPartitionCount(pool: pg.Pool, topic: string, partitions: number): Promise<number> {
  const { rows } = await pool.query<{ partitions: number }>(
    `INSERT INTO integrity_topics (topic, partitions) VALUES ($1, $2)
     ON CONFLICT (topic) DO UPDATE SET topic = EXCLUDED.topic RETURNING partitions`,
    [topic, partitions],
  );
  const recorded = rows[0]!.partitions;
  if (recorded !== partitions) throw refusal(topic, recorded, partitions);
  return recorded;
}

/** A batch from a partition the recorded count does not have: the topic grew while the projector ran. */
export function checkPartition(topic: string, partition: number, recorded: number) {
  if (partition >= recorded) throw refusal(topic, recorded, partition + 1);
}
