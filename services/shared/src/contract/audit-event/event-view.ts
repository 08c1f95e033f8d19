import { formatTimestamp } from '../time.js';

/** An audit_events row as ClickHouse returns it in JSON (64-bit integers as strings). */
export interface EventRow {
  event_id: string;
  ts: string;
  tenant_id: string;
  action: string;
  user_id: string;
  user_role: string;
  resource_type: string;
  resource_id: string;
  fields_accessed: string;
  phi_involved: number;
  source_ip: string;
  user_agent: string;
  justification: string;
  success: number;
  details: string;
}

export const EVENT_COLUMNS =
  'event_id, ts, tenant_id, action, user_id, user_role, resource_type, resource_id, fields_accessed, phi_involved, source_ip, user_agent, justification, success, details';

/** The audit event as the public API returns it, and as export files hold it (docs/exports.md "Files"). */
export interface AuditEventView {
  event_id: string;
  timestamp: string;
  action: string;
  user_id: string;
  user_role: string;
  resource_type: string;
  resource_id: string;
  fields_accessed: string;
  phi_involved: boolean;
  tenant_id: string;
  source_ip: string;
  user_agent: string;
  justification: string;
  success: boolean;
  details: string;
}

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
  };
}
