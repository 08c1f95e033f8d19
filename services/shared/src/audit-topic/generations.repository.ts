import type pg from 'pg';
import { generationTopic, type Generation } from './generations.js';

type Queryable = Pick<pg.Pool, 'query'>;

interface Row {
  generation: number;
  topic: string;
  partitions: number;
  previous_ends: string[] | null;
}

/** The audit topic's generations as `ops topics grow` recorded them (migration 0022). */
export const generationsRepository = {
  /** Every generation, oldest first; generation 1 with the partition count given for it (the topic set's). */
  async list(db: Queryable, base: string, firstPartitions: number): Promise<Generation[]> {
    const { rows } = await db.query<Row>(
      `SELECT generation, topic, partitions, previous_ends FROM audit_topic_generations
       WHERE base = $1 ORDER BY generation`,
      [base],
    );
    return [
      { generation: 1, topic: generationTopic(base, 1), partitions: firstPartitions, previousEnds: null },
      ...rows.map((r) => ({
        generation: r.generation,
        topic: r.topic,
        partitions: r.partitions,
        previousEnds: r.previous_ends?.map(BigInt) ?? null,
      })),
    ];
  },

  /** Records a new generation; an existing one (a growth run again after a crash) is left as it is. */
  async record(db: Queryable, base: string, generation: number, partitions: number): Promise<void> {
    await db.query(
      `INSERT INTO audit_topic_generations (base, generation, topic, partitions) VALUES ($1, $2, $3, $4)
       ON CONFLICT (base, generation) DO NOTHING`,
      [base, generation, generationTopic(base, generation), partitions],
    );
  },

  /** The seal of the generation before: its ends, recorded once. */
  async seal(
    db: Queryable,
    base: string,
    generation: number,
    previousEnds: readonly bigint[],
  ): Promise<void> {
    await db.query(
      `UPDATE audit_topic_generations SET previous_ends = $3::bigint[], sealed_at = now()
       WHERE base = $1 AND generation = $2 AND previous_ends IS NULL`,
      [base, generation, previousEnds.map(String)],
    );
  },
};
