import { csvField } from '../contract/csv-field.js';
import type { PatientAccessRow } from './patient-access-report.js';

/** The report's CSV columns, in their documented order (docs/reports.md "CSV"): each row's fields, flattened. */
export const REPORT_CSV_COLUMNS = [
  'event_id',
  'timestamp',
  'user_id',
  'user_role',
  'action',
  'resource_type',
  'resource_id',
  'fields_accessed',
  'phi_involved',
  'purpose_of_use',
  'purpose_display',
  'justification',
  'disclosure',
  'recipient',
  'success',
  'source_ip',
  'accounting_status',
  'exclusion',
  'checkpoint_tree_size',
  'checkpoint_signed_at',
] as const;

type Column = (typeof REPORT_CSV_COLUMNS)[number];

/** A row's value in a column: flags as true/false, the fields read as a JSON array, nothing as an empty field. */
function valueOf(row: PatientAccessRow, column: Column): string {
  switch (column) {
    case 'fields_accessed':
      return JSON.stringify(row.fields_accessed);
    case 'checkpoint_tree_size':
      return row.checkpoint ? String(row.checkpoint.tree_size) : '';
    case 'checkpoint_signed_at':
      return row.checkpoint?.signed_at ?? '';
    default:
      return String(row[column] ?? '');
  }
}

/** The whole report as CSV (RFC 4180, CRLF), its header first: the rows in the order given. */
export function patientAccessCsv(rows: readonly PatientAccessRow[]): string {
  const lines = [REPORT_CSV_COLUMNS.join(',')];
  for (const row of rows) lines.push(REPORT_CSV_COLUMNS.map((c) => csvField(valueOf(row, c))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
