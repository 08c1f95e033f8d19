import type { PatientAccessRow, ReportExclusion } from './patient-access-report.js';
import type { Paragraph, TextStyle } from './pdf-text-layout.js';

export const CELL: TextStyle = { weight: 'regular', size: 7.5, color: '#111111' };
const CELL_MUTED: TextStyle = { ...CELL, color: '#555555' };
export const HEADER: TextStyle = { ...CELL, weight: 'bold' };
const PROOF: TextStyle = { weight: 'regular', size: 6.5, color: '#555555' };

/** The paragraph of HIPAA 164.528(a)(1) behind each exclusion, and what it covers in a patient's words. */
const EXCLUSIONS: Record<ReportExclusion, [paragraph: string, covers: string]> = {
  treatment_payment_operations: ['(i)', 'treatment, payment or health care operations'],
  to_individual: ['(ii)', 'to you'],
  incidental: ['(iii)', 'incidental to a permitted use or disclosure'],
  authorized: ['(iv)', 'with your written authorization'],
  directory_or_involved_persons: ['(v)', 'facility directory, or people involved in your care'],
  national_security: ['(vi)', 'national security or intelligence'],
  correctional_custody: ['(vii)', 'correctional institution or law enforcement custody'],
  limited_data_set: ['(viii)', 'limited data set'],
  before_compliance_date: ['(ix)', 'before the compliance date, April 14, 2003'],
};

const cell = (text: string, style = CELL): Paragraph => ({ text, style });

/** A time as the API gives it, in UTC: the date, then the time to the second (the event id tells events apart). */
function dateCell(timestamp: string): Paragraph[] {
  const iso = new Date(timestamp).toISOString();
  return [cell(iso.slice(0, 10)), cell(iso.slice(11, 19), CELL_MUTED)];
}

function whatCell(row: PatientAccessRow): Paragraph[] {
  const what = [cell(`${row.action} on ${[row.resource_type, row.resource_id].filter(Boolean).join(' ')}`)];
  if (row.fields_accessed.length > 0)
    what.push(cell(`Fields: ${row.fields_accessed.join(', ')}`, CELL_MUTED));
  return what;
}

function purposeCell(row: PatientAccessRow): Paragraph[] {
  const purpose = row.purpose_display ? `${row.purpose_of_use} (${row.purpose_display})` : row.purpose_of_use;
  return [cell(purpose), cell(row.justification, CELL_MUTED)];
}

// A use stays within the covered entity: it has no recipient, and a dash says so rather than a blank.
const recipientCell = (row: PatientAccessRow): Paragraph[] => [
  cell(row.disclosure ? row.recipient || 'not recorded' : '—'),
];

function statusCell(row: PatientAccessRow): Paragraph[] {
  if (row.accounting_status !== 'excluded' || row.exclusion === null) return [cell(row.accounting_status)];
  const [paragraph, covers] = EXCLUSIONS[row.exclusion];
  return [cell(`excluded: HIPAA 164.528(a)(1)${paragraph}`), cell(covers, CELL_MUTED)];
}

export interface Column {
  title: string;
  /** Points, padding included. */
  width: number;
  paragraphs(row: PatientAccessRow): Paragraph[];
}

/** The table's columns, left to right: 532 points together, a Letter page less its margins. */
export const COLUMNS: Column[] = [
  { title: 'Date (UTC)', width: 56, paragraphs: (row) => dateCell(row.timestamp) },
  { title: 'Who', width: 80, paragraphs: (row) => [cell(row.user_id), cell(row.user_role, CELL_MUTED)] },
  { title: 'What', width: 100, paragraphs: whatCell },
  { title: 'Purpose', width: 96, paragraphs: purposeCell },
  { title: 'Recipient', width: 78, paragraphs: recipientCell },
  { title: 'Status', width: 80, paragraphs: statusCell },
  { title: 'Outcome', width: 42, paragraphs: (row) => [cell(row.success ? 'success' : 'failure')] },
];

/** The line under a row that names what to ask for to have it proven: the event, and the checkpoint. */
export function proofParagraph(row: PatientAccessRow): Paragraph {
  const checkpoint = row.checkpoint
    ? `checkpoint tree size ${row.checkpoint.tree_size}`
    : 'not yet in a signed checkpoint: ask again after the next one';
  return { text: `Event id ${row.event_id} · ${checkpoint}`, style: PROOF };
}
