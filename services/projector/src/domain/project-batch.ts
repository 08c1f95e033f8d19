import { auditEventRecordSchema, type AuditEventRecord, type Codec } from '@audit/shared/contract';
import type { ConsumedRecord, DeadLetter } from './consumed-record.js';

export interface ProjectedBatch {
  /** Valid events, first occurrence of each (tenant_id, event_id) only, in consumption order. */
  events: AuditEventRecord[];
  /** The record each event came from, by position in `events`. */
  sources: ConsumedRecord[];
  deadLetters: DeadLetter[];
  /** The record each event came from, by idKey: where a refused event is dead-lettered from. */
  origins: Map<string, ConsumedRecord>;
}

export const idKey = (e: Pick<AuditEventRecord, 'tenant_id' | 'event_id'>) =>
  `${e.tenant_id}\u0000${e.event_id}`;

function decodeOne(record: ConsumedRecord, codec: Codec<AuditEventRecord>): AuditEventRecord | DeadLetter {
  if (record.value === null) return { record, stage: 'decode', error: 'record has no value' };
  let decoded: AuditEventRecord;
  try {
    decoded = codec.decode(record.value);
  } catch (err) {
    return { record, stage: 'decode', error: (err as Error).message };
  }
  const checked = auditEventRecordSchema.safeParse(decoded);
  if (!checked.success) {
    const error = checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    return { record, stage: 'validate', error };
  }
  return checked.data;
}

/** Decodes and validates a batch; what cannot be stored is set aside for the dead-letter topic, never retried. */
export function projectBatch(
  records: readonly ConsumedRecord[],
  codec: Codec<AuditEventRecord>,
): ProjectedBatch {
  const events: AuditEventRecord[] = [];
  const sources: ConsumedRecord[] = [];
  const deadLetters: DeadLetter[] = [];
  const origins = new Map<string, ConsumedRecord>();
  for (const record of records) {
    const result = decodeOne(record, codec);
    if ('stage' in result) {
      deadLetters.push(result);
    } else if (!origins.has(idKey(result))) {
      origins.set(idKey(result), record);
      events.push(result);
      sources.push(record);
    }
  }
  return { events, sources, deadLetters, origins };
}
