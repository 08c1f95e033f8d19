import type { AuditEventRecord } from '@audit/shared/contract';

/**
 * The events table's columns as the previous version made them, before the event's version 2 added the patient and
 * disclosure fields: what an upgrade test's database starts from.
 */
export const V1_COLUMNS = `ts Int64, event_id String, action String, user_id String, user_role String,
  resource_type String, resource_id String, fields_accessed String, phi_involved UInt8, source_ip String,
  user_agent String, justification String, success UInt8, details String, ingested_at Int64`;
export const V1_NAMES = V1_COLUMNS.split(',').map((c) => c.trim().split(' ')[0]!);

/** A record as a row of such a table. */
export const v1Row = (e: AuditEventRecord) => ({
  ...Object.fromEntries(V1_NAMES.map((n) => [n, e[n as keyof AuditEventRecord]])),
  tenant_id: e.tenant_id,
  ts: e.timestamp,
  phi_involved: Number(e.phi_involved),
  success: Number(e.success),
});
