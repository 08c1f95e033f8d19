import { type EventRow } from '@audit/shared/contract';

/** The i-th of a run of stored events, newest first: one millisecond apart below `newest`, ids in list order. */
export const eventRow = (i: number, tenantId: string, newest: number): EventRow => ({
  event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  ts: String(newest - i),
  tenant_id: tenantId,
  action: 'phi.read',
  user_id: 'u-1',
  user_role: 'clinician',
  resource_type: 'claim',
  resource_id: `c-${i}`,
  fields_accessed: '["dob"]',
  phi_involved: 1,
  source_ip: '10.0.0.1',
  user_agent: 'test',
  justification: '',
  success: 1,
  details: '{}',
  patient_id: '',
  purpose_of_use: '',
  recipient: '',
  disclosure: 0,
  accounting_exclusion: '',
  leaf_salts: '',
});
