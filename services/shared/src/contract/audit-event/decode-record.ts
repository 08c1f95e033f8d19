import type { Codec } from '../codec/single-object.codec.js';
import type { AuditEventRecord } from './audit-event.js';
import { auditEventRecordSchema } from './record.schema.js';

/**
 * A topic record's audit event, or null when it does not decode or breaks the stored-event rules (the
 * projector dead-letters those; other readers of the topic skip them).
 */
export function decodeAuditRecord(
  codec: Codec<AuditEventRecord>,
  value: Buffer | null,
): AuditEventRecord | null {
  if (!value) return null;
  try {
    const parsed = auditEventRecordSchema.safeParse(codec.decode(value));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
