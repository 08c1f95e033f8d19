import type { AuditEventRecord } from '../audit-event/audit-event.js';
import { loadSchemaVersions } from './schema-registry.js';
import { singleObjectCodec, type Codec } from './single-object.codec.js';

export function auditEventCodec(): Codec<AuditEventRecord> {
  return singleObjectCodec<AuditEventRecord>(loadSchemaVersions('audit-event'));
}
