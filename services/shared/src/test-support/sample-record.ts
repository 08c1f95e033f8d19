import { randomUUID } from 'node:crypto';
import { NO_PATIENT_FIELDS, type AuditEventRecord } from '../contract/audit-event/audit-event.js';

/** A valid stored record for unit tests; override what the test is about. */
export function sampleRecord(overrides: Partial<AuditEventRecord> = {}): AuditEventRecord {
  return {
    event_id: randomUUID(),
    timestamp: Date.UTC(2026, 10, 21, 10, 0, 0, 123),
    tenant_id: 'tenant-a',
    action: 'phi.read',
    user_id: 'user-1',
    user_role: 'clinician',
    resource_type: 'claim',
    resource_id: 'clm_1',
    fields_accessed: '["dob","ssn"]',
    phi_involved: true,
    source_ip: '203.0.113.7',
    user_agent: 'test-agent/1.0',
    justification: 'treatment',
    success: true,
    details: '{"reason":"review"}',
    ingested_at: Date.UTC(2026, 10, 21, 10, 0, 1),
    ...NO_PATIENT_FIELDS,
    leaf_salts: '',
    ...overrides,
  };
}
