import type pg from 'pg';

/**
 * Where each partition of the audit topic is appended to the trees up to (migration 0021): the next offset to
 * append. Given once by `begin`, then moved by appendToTrees in the transaction that appends (and by an operator,
 * docs/operations.md "Integrity").
 */
export const treePositions = (pool: pg.Pool, topic: string) => ({
  async of(partition: number): Promise<bigint | null> {
    const { rows } = await pool.query<{ next_offset: string }>(
      'SELECT next_offset FROM integrity_positions WHERE topic = $1 AND partition = $2',
      [topic, partition],
    );
    return rows[0] ? BigInt(rows[0].next_offset) : null;
  },

  /** Gives the partitions that have none the position given; a partition's position, once given, stays its own. */
  async begin(starts: ReadonlyMap<number, string>): Promise<void> {
    await pool.query(
      `INSERT INTO integrity_positions (topic, partition, next_offset)
       SELECT $1, * FROM unnest($2::int[], $3::bigint[]) ON CONFLICT DO NOTHING`,
      [topic, [...starts.keys()], [...starts.values()]],
    );
  },
});

export type TreePositions = ReturnType<typeof treePositions>;

/** Every position of the topics' partitions: topic → partition → the next offset to append. */
export async function positionsOf(
  pool: pg.Pool,
  topics: readonly string[],
): Promise<Map<string, Map<number, bigint>>> {
  const { rows } = await pool.query<{ topic: string; partition: number; next_offset: string }>(
    'SELECT topic, partition, next_offset FROM integrity_positions WHERE topic = ANY($1::text[])',
    [topics],
  );
  const positions = new Map<string, Map<number, bigint>>();
  for (const r of rows) {
    if (!positions.has(r.topic)) positions.set(r.topic, new Map());
    positions.get(r.topic)!.set(r.partition, BigInt(r.next_offset));
  }
  return positions;
}
