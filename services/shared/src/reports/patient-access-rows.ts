import { isAccountingExclusion, type AccountingExclusion } from '../contract/audit-event/disclosure.js';
import { PURPOSE_OF_USE } from '../contract/audit-event/purpose-of-use.js';
import type { AuditEventView } from '../contract/audit-event/event-view.js';
import { formatTimestamp } from '../contract/time.js';
import {
  ACCOUNTING_STATUSES,
  COMPLIANCE_DATE_MS,
  type AccountingStatus,
  type PatientAccessHeading,
  type PatientAccessRow,
  type ReportExclusion,
  type ReportMode,
  type RowCheckpoint,
} from './patient-access-report.js';

/**
 * The purposes of use whose disclosures 164.528(a)(1) leaves out of an accounting by their purpose alone, each with
 * its paragraph. Listed one by one, not read from HL7's hierarchy: HL7 files under HOPERAT purposes that HIPAA makes
 * disclosures owed to the patient (GOV: required by law or oversight, 164.512(a) and (d); HLEGAL: judicial
 * proceedings, (e); HDECD: coroners, (g); DONAT: organ donation, (h); MILCDM: armed forces, (k)(1); HPRGRP:
 * reporting to programs), and under TREAT and HPAYMT research (CLINTRL) and military discharge (MILDCRG). A purpose
 * not listed is reportable: when unsure, the patient is told. Treatment, payment and health care operations as
 * 164.501 defines them (operations: quality, safety, outcomes and performance, care management, accreditation and
 * compliance, fraud and abuse detection, administration, training, population health): (i); a facility's
 * directory, 164.510(a): (v).
 */
export const PURPOSE_EXCLUSIONS: ReadonlyMap<string, AccountingExclusion> = new Map([
  ...[
    ...['TREAT', 'COC', 'ETREAT', 'BTG', 'ERTREAT', 'POPHLTH'],
    ...['HPAYMT', 'CLMATTCH', 'COVAUTH', 'COVERAGE', 'ELIGDTRM', 'ELIGVER', 'ENROLLM', 'REMITADV'],
    ...['HOPERAT', 'CAREMGT', 'FRAUD', 'HACCRED', 'HCOMPL', 'HDM', 'HOUTCOMS', 'HQUALIMP', 'HSYSADMIN'],
    ...[
      'LABELING',
      'METAMGT',
      'MEMADMIN',
      'PATADMIN',
      'PATSFTY',
      'PERFMSR',
      'RECORDMGT',
      'SYSDEV',
      'HTEST',
      'TRAIN',
    ],
  ].map((code) => [code, 'treatment_payment_operations'] as const),
  ['HDIRECT', 'directory_or_involved_persons'],
]);

/**
 * Where an event stands in an accounting of disclosures (docs/reports.md "Exclusions"). A use is never accounted
 * for, nor a disclosure that failed (nothing left). A disclosure is excluded by the paragraph its producer named;
 * else by its time, before the compliance date; else by its purpose (PURPOSE_EXCLUSIONS). Any other disclosure is
 * owed to the patient.
 */
export function accountingOf(event: {
  disclosure: boolean;
  success: boolean;
  accounting_exclusion: string;
  purpose_of_use: string;
  timestampMs: number;
}): { status: AccountingStatus; exclusion: ReportExclusion | null } {
  if (!event.disclosure) return { status: 'use', exclusion: null };
  if (!event.success) return { status: 'attempted', exclusion: null };
  const named = event.accounting_exclusion;
  if (isAccountingExclusion(named)) return { status: 'excluded', exclusion: named };
  if (event.timestampMs < COMPLIANCE_DATE_MS)
    return { status: 'excluded', exclusion: 'before_compliance_date' };
  const byPurpose = PURPOSE_EXCLUSIONS.get(event.purpose_of_use);
  if (byPurpose) return { status: 'excluded', exclusion: byPurpose };
  return { status: 'reportable', exclusion: null };
}

/** What a row is made of: the event's fields a report shows, as the API gives them. */
export type ReportSource = Omit<
  AuditEventView,
  'timestamp' | 'tenant_id' | 'details' | 'user_agent' | 'patient_id'
>;

/** An event as a row of the report, with the checkpoint that covers it. */
export function reportRow(
  event: ReportSource,
  timestampMs: number,
  checkpoint: RowCheckpoint | null,
): PatientAccessRow {
  const { status, exclusion } = accountingOf({ ...event, timestampMs });
  return {
    event_id: event.event_id,
    timestamp: formatTimestamp(timestampMs),
    user_id: event.user_id,
    user_role: event.user_role,
    action: event.action,
    resource_type: event.resource_type,
    resource_id: event.resource_id,
    fields_accessed: JSON.parse(event.fields_accessed) as string[],
    phi_involved: event.phi_involved,
    purpose_of_use: event.purpose_of_use,
    purpose_display: PURPOSE_OF_USE.get(event.purpose_of_use)?.display ?? '',
    justification: event.justification,
    disclosure: event.disclosure,
    recipient: event.recipient,
    success: event.success,
    source_ip: event.source_ip,
    accounting_status: status,
    exclusion,
    checkpoint,
  };
}

/** The columns a report sorts by: every column it shows. */
export const SORT_COLUMNS = [
  'timestamp',
  'user_id',
  'user_role',
  'action',
  'resource_type',
  'resource_id',
  'purpose_of_use',
  'justification',
  'disclosure',
  'recipient',
  'success',
  'accounting_status',
  'exclusion',
  'event_id',
] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];
export type SortOrder = 'asc' | 'desc';

// Text is compared by code point, as ClickHouse and the list compare it, never by a locale: the order of a report
// must not change with the server it is made on. Flags sort false first; no exclusion sorts first.
const keyOf = (row: PatientAccessRow, column: SortColumn): string => {
  const value = row[column];
  if (typeof value === 'boolean') return value ? '1' : '0';
  return value ?? '';
};

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Sorts rows by one column; ties in time order, then by event id, in the same direction: a total order, so that a
 * page ends at one row and the next begins right after it.
 */
export function sortRows(rows: PatientAccessRow[], column: SortColumn, order: SortOrder): PatientAccessRow[] {
  const sign = order === 'asc' ? 1 : -1;
  return rows.sort(
    (a, b) =>
      sign *
      (byCodePoint(keyOf(a, column), keyOf(b, column)) ||
        byCodePoint(a.timestamp, b.timestamp) ||
        byCodePoint(a.event_id, b.event_id)),
  );
}

/**
 * The page of sorted rows after the row `after` (an event id; none: the first page). A row that came after the
 * previous page was read takes its place in the order: the pages then show it if it sorts after the page they
 * continue from. Null when `after` is not among the rows, which an immutable trail never does to a valid cursor.
 */
export function pageAfter(
  rows: readonly PatientAccessRow[],
  after: string | null,
  limit: number,
): { rows: PatientAccessRow[]; hasMore: boolean } | null {
  let from = 0;
  if (after !== null) {
    const at = rows.findIndex((r) => r.event_id === after);
    if (at === -1) return null;
    from = at + 1;
  }
  return { rows: rows.slice(from, from + limit), hasMore: from + limit < rows.length };
}

/** The report's rows as asked (its mode, then its order), and the patient's events by status whatever the mode. */
export function arrangeReport(
  rows: readonly PatientAccessRow[],
  asked: { mode: ReportMode; sort: SortColumn; order: SortOrder },
): { rows: PatientAccessRow[]; counts: Record<AccountingStatus, number> } {
  const counts = Object.fromEntries(
    ACCOUNTING_STATUSES.map((status) => [status, rows.filter((r) => r.accounting_status === status).length]),
  ) as Record<AccountingStatus, number>;
  const shown =
    asked.mode === 'accounting' ? rows.filter((r) => r.accounting_status === 'reportable') : [...rows];
  return { rows: sortRows(shown, asked.sort, asked.order), counts };
}

/** What a report made now is of, as its heading shows it: the tenant's name where an operator gave one. */
export function reportHeading(made: {
  tenantId: string;
  tenantName: string | null;
  patientId: string;
  window: { since: number; until: number };
  mode: ReportMode;
  now: number;
}): PatientAccessHeading {
  return {
    tenant_id: made.tenantId,
    tenant_name: made.tenantName ?? made.tenantId,
    patient_id: made.patientId,
    since: formatTimestamp(made.window.since),
    until: formatTimestamp(made.window.until),
    mode: made.mode,
    generated_at: formatTimestamp(made.now),
  };
}
