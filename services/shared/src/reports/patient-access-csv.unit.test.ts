import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { PatientAccessRow } from './patient-access-report.js';
import { patientAccessCsv, REPORT_CSV_COLUMNS } from './patient-access-csv.js';

const row: PatientAccessRow = {
  event_id: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90',
  timestamp: '2026-11-21T09:30:00.123+00:00',
  user_id: 'Zoë "Z" Ñúñez',
  user_role: 'nurse',
  action: 'phi.disclose',
  resource_type: 'patient',
  resource_id: 'p-1042',
  fields_accessed: ['dob', 'ssn'],
  phi_involved: true,
  purpose_of_use: 'HRESCH',
  purpose_display: 'healthcare research',
  justification: 'study 12,\r\nsecond line',
  disclosure: true,
  recipient: 'Acme Research, 1 Main St',
  success: true,
  source_ip: '203.0.113.7',
  accounting_status: 'reportable',
  exclusion: null,
  checkpoint: { tree_size: 1234, signed_at: '2026-11-21T09:31:00.000+00:00' },
};

describe('the report as CSV', () => {
  it('is read back by a CSV reader into every column of every row, values exact', () => {
    const records = parse(patientAccessCsv([row, { ...row, exclusion: 'authorized', checkpoint: null }]), {
      columns: true,
    }) as Record<string, string>[];
    expect(Object.keys(records[0]!)).toEqual([...REPORT_CSV_COLUMNS]);
    expect(records[0]).toMatchObject({
      user_id: row.user_id,
      fields_accessed: '["dob","ssn"]',
      justification: row.justification,
      recipient: row.recipient,
      disclosure: 'true',
      exclusion: '',
      checkpoint_tree_size: '1234',
      checkpoint_signed_at: row.checkpoint!.signed_at,
    });
    expect(records[1]).toMatchObject({
      exclusion: 'authorized',
      checkpoint_tree_size: '',
      checkpoint_signed_at: '',
    });
  });

  it('is its header alone when the report has no row', () => {
    expect(patientAccessCsv([])).toBe(`${REPORT_CSV_COLUMNS.join(',')}\r\n`);
  });
});
