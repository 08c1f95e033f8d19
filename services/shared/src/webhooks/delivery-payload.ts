import type { AuditEventRecord } from '../contract/audit-event/audit-event.js';
import { formatTimestamp } from '../contract/time.js';

/**
 * The spec's delivery payload; `details` parsed to an object. Serialized once, sent byte-identical every time.
 * `patient_id` ("" when the event names none) comes last, after the spec's fields, which keep their order.
 */
export function deliveryPayload(event: AuditEventRecord): Buffer {
  return Buffer.from(
    JSON.stringify({
      type: event.action,
      id: event.event_id,
      timestamp: formatTimestamp(event.timestamp),
      tenant_id: event.tenant_id,
      actor: { user_id: event.user_id, user_role: event.user_role },
      resource: { type: event.resource_type, id: event.resource_id },
      phi_involved: event.phi_involved,
      success: event.success,
      details: JSON.parse(event.details) as unknown,
      schema_version: '1',
      patient_id: event.patient_id,
    }),
  );
}
