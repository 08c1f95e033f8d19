import type { ConsumedRecord } from '../domain/consumed-record.js';

/** Records as the consumer hands them over, of one partition, at offsets counting up from 0. */
export function consumedRecords(key: Buffer | null = null): (value: Buffer | null) => ConsumedRecord {
  let offset = 0;
  return (value) => ({ topic: 't', partition: 0, offset: String(offset++), key, value, headers: {} });
}
