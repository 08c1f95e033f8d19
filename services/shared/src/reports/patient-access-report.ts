import type { AccountingExclusion } from '../contract/audit-event/disclosure.js';

/**
 * Paragraph (ix) of HIPAA 164.528(a)(1): disclosures before the compliance date need not be accounted for. The
 * date of covered entities other than small health plans (those had a year more); docs/reports.md says so.
 */
export const COMPLIANCE_DATE_MS = Date.UTC(2003, 3, 14);

/** Why a disclosure is left out of an accounting: a paragraph the producer named, or one read from the event. */
export type ReportExclusion = AccountingExclusion | 'before_compliance_date';

/**
 * A row's place in an accounting of disclosures: a use within the covered entity (listed, never accounted for), a
 * disclosure that failed and disclosed nothing (listed, never accounted for), a disclosure the rule excludes, or one
 * the patient is owed.
 */
export const ACCOUNTING_STATUSES = ['use', 'attempted', 'excluded', 'reportable'] as const;
export type AccountingStatus = (typeof ACCOUNTING_STATUSES)[number];

/** The checkpoint that first covers a row's event: ask for its inclusion proof at this tree size. */
export interface RowCheckpoint {
  tree_size: number;
  /** When the notary signed it (the API's time text). */
  signed_at: string;
}

/** One access to or disclosure of the patient's PHI, as every format of the report shows it. */
export interface PatientAccessRow {
  event_id: string;
  /** The API's time text: UTC, milliseconds, `+00:00`. */
  timestamp: string;
  user_id: string;
  user_role: string;
  action: string;
  resource_type: string;
  resource_id: string;
  fields_accessed: string[];
  phi_involved: boolean;
  purpose_of_use: string;
  /** The purpose code's display in HL7's code system, or "" without one. */
  purpose_display: string;
  justification: string;
  disclosure: boolean;
  recipient: string;
  success: boolean;
  source_ip: string;
  accounting_status: AccountingStatus;
  /** Set exactly when accounting_status is `excluded`. */
  exclusion: ReportExclusion | null;
  /** Null while no checkpoint covers the event yet (it is newer than the latest one). */
  checkpoint: RowCheckpoint | null;
}

/** `access`: every event naming the patient; `accounting`: only the disclosures the patient is owed. */
export const REPORT_MODES = ['access', 'accounting'] as const;
export type ReportMode = (typeof REPORT_MODES)[number];

/** The forms a report is given in (docs/reports.md "Formats"). */
export const PATIENT_ACCESS_FORMATS = ['json', 'csv', 'pdf', 'fhir'] as const;
export type PatientAccessFormat = (typeof PATIENT_ACCESS_FORMATS)[number];

/** What a report is of, as its heading shows it. */
export interface PatientAccessHeading {
  tenant_id: string;
  /** The tenant's name as its heading shows it: the tenant's id where none was given (docs/reports.md). */
  tenant_name: string;
  patient_id: string;
  /** Inclusive lower bound and exclusive upper bound, the API's time text. */
  since: string;
  until: string;
  mode: ReportMode;
  generated_at: string;
}

export interface PatientAccessReport {
  heading: PatientAccessHeading;
  rows: PatientAccessRow[];
}
