/** A record's headers as Kafka clients give them (kafkajs' `IHeaders`). */
export type RecordHeaders = Record<string, Buffer | string | (Buffer | string)[] | undefined>;

/** What the projector needs of one Kafka record: its bytes and where it came from. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeaders;
}

export interface DeadLetter {
  record: ConsumedRecord;
  /** Where it was refused: undecodable, invalid, or refused by ClickHouse for good (store-or-refuse.ts). */
  stage: 'decode' | 'validate' | 'store';
  error: string;
}

/** The topic partitions the records came from, each once, as `topic:partition`. */
export const partitionKeys = (records: readonly Pick<ConsumedRecord, 'topic' | 'partition'>[]): string[] => [
  ...new Set(records.map((r) => `${r.topic}:${r.partition}`)),
];
