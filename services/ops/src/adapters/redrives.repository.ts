import type pg from 'pg';

type Queryable = Pick<pg.ClientBase, 'query'>;

export interface RedriveRecord {
  topic: string;
  partition: number;
  offset: string;
  redrivenBy: string;
  sentTo: string;
  endpointId: string | null;
}

export const placeKey = (topic: string, partition: number, offset: string) =>
  `${topic}:${partition}:${offset}`;

/** Which dead letters were redriven (0006_dead_letter_redrives). */
export const redrivesRepository = {
  /** When each redriven record of the topic was redriven, by place (`topic:partition:offset`). */
  async redrivenAt(db: Queryable, topic: string): Promise<Map<string, Date>> {
    const { rows } = await db.query<{ partition: number; record_offset: string; redriven_at: Date }>(
      'SELECT partition, record_offset, redriven_at FROM dead_letter_redrives WHERE topic = $1',
      [topic],
    );
    return new Map(rows.map((r) => [placeKey(topic, r.partition, r.record_offset), r.redriven_at]));
  },

  /** Notes records as redriven; one noted before keeps its first note. */
  async note(db: Queryable, records: readonly RedriveRecord[]): Promise<void> {
    if (records.length === 0) return;
    await db.query(
      `INSERT INTO dead_letter_redrives (topic, partition, record_offset, redriven_by, sent_to, endpoint_id)
       SELECT * FROM json_to_recordset($1::json)
         AS r(topic text, partition integer, record_offset bigint, redriven_by text, sent_to text, endpoint_id text)
       ON CONFLICT DO NOTHING`,
      [
        JSON.stringify(
          records.map((r) => ({
            topic: r.topic,
            partition: r.partition,
            record_offset: r.offset,
            redriven_by: r.redrivenBy,
            sent_to: r.sentTo,
            endpoint_id: r.endpointId,
          })),
        ),
      ],
    );
  },
};
