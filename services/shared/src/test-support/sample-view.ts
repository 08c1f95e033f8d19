import type { AuditEventView } from '../contract/audit-event/event-view.js';
import type { PatientAccessHeading } from '../reports/patient-access-report.js';

/** An event as the API returns it, naming a patient, for unit tests; override what the test is about. */
export function sampleView(overrides: Partial<AuditEventView> = {}): AuditEventView {
  return {
    event_id: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90',
    timestamp: '2026-11-21T09:30:00.123+00:00',
    tenant_id: 'acme',
    action: 'phi.read',
    user_id: 'u-1',
    user_role: 'nurse',
    resource_type: 'lab result',
    resource_id: 'r-7',
    fields_accessed: '["dob","ssn"]',
    phi_involved: true,
    source_ip: '203.0.113.7',
    user_agent: 'EHR/2.1',
    justification: 'chart review',
    success: true,
    details: '{}',
    patient_id: 'p-1042',
    purpose_of_use: 'TREAT',
    recipient: '',
    disclosure: false,
    accounting_exclusion: '',
    ...overrides,
  };
}

/** A report's heading for unit tests; override what the test is about. */
export function sampleHeading(overrides: Partial<PatientAccessHeading> = {}): PatientAccessHeading {
  return {
    tenant_id: 'acme',
    tenant_name: 'Acme Health',
    patient_id: 'p-1042',
    since: '2020-11-21T00:00:00.000+00:00',
    until: '2026-11-22T00:00:00.000+00:00',
    mode: 'access',
    generated_at: '2026-11-22T08:00:00.000+00:00',
    ...overrides,
  };
}
