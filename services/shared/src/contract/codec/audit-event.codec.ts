import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AuditEventRecord } from '../audit-event/audit-event.js';
import { loadSchemaVersions } from './schema-registry.js';
import { singleObjectCodec, type Codec } from './single-object.codec.js';

/**
 * The audit event contract's codec. `schemasDir` (a directory holding `audit-event/vN.avsc`) replaces the
 * contract shipped in `schemas/`: a projector can be given a newer version than it was built with.
 */
export function auditEventCodec(schemasDir?: string): Codec<AuditEventRecord> {
  const dir = schemasDir === undefined ? undefined : pathToFileURL(join(schemasDir, 'audit-event/'));
  return singleObjectCodec<AuditEventRecord>(loadSchemaVersions('audit-event', dir));
}
