import { formatTimestamp } from '../time.js';
import type { AuditEventRecord } from './audit-event.js';
import { leafSaltsText } from './leaf-salts.js';

/** The fields that keep their type from the audit topic's record to the public API: text. */
type TextFields = Omit<
  AuditEventRecord,
  'timestamp' | 'phi_involved' | 'success' | 'disclosure' | 'ingested_at' | 'leaf_salts'
>;

/** An audit_events row as ClickHouse returns it in JSON (64-bit integers as strings). */
export type EventRow = TextFields & {
  ts: string;
  phi_involved: number;
  success: number;
  disclosure: number;
  /** What is stored of its salts (leaf-salts.ts): the view gives the salts themselves. */
  leaf_salts: string;
};

export const EVENT_COLUMNS =
  'event_id, ts, tenant_id, action, user_id, user_role, resource_type, resource_id, fields_accessed, phi_involved, source_ip, user_agent, justification, success, details, patient_id, purpose_of_use, recipient, disclosure, accounting_exclusion, leaf_salts';

/** The audit event as the public API returns it, and as export files hold it (docs/exports.md "Files"). */
export type AuditEventView = TextFields & {
  timestamp: string;
  phi_involved: boolean;
  success: boolean;
  disclosure: boolean;
  /** Only on an event with salts: a row with `leaf_salts` is of leaf version 3 (docs/integrity.md "Version 3"). */
  leaf_salts?: string;
};

/** A stored row as the public API returns it. */
export function toAuditEventView(row: EventRow): AuditEventView {
  return {
    event_id: row.event_id,
    timestamp: formatTimestamp(Number(row.ts)),
    action: row.action,
    user_id: row.user_id,
    user_role: row.user_role,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    fields_accessed: row.fields_accessed,
    phi_involved: row.phi_involved === 1,
    tenant_id: row.tenant_id,
    source_ip: row.source_ip,
    user_agent: row.user_agent,
    justification: row.justification,
    success: row.success === 1,
    details: row.details,
    patient_id: row.patient_id,
    purpose_of_use: row.purpose_of_use,
    recipient: row.recipient,
    disclosure: row.disclosure === 1,
    accounting_exclusion: row.accounting_exclusion,
    ...(row.leaf_salts === '' ? {} : { leaf_salts: leafSaltsText(row.leaf_salts) }),
  };
}
