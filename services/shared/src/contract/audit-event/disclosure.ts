/**
 * The disclosures HIPAA 164.528(a)(1) lets a covered entity leave out of an accounting, paragraphs (i) to (viii),
 * as a producer names them on an event (docs/ingest.md "Disclosures"). Paragraph (ix), disclosures before the
 * compliance date, is read from the event's time, never stated.
 */
export const ACCOUNTING_EXCLUSIONS = [
  'treatment_payment_operations',
  'to_individual',
  'incidental',
  'authorized',
  'directory_or_involved_persons',
  'national_security',
  'correctional_custody',
  'limited_data_set',
] as const;
export type AccountingExclusion = (typeof ACCOUNTING_EXCLUSIONS)[number];

const EXCLUSIONS: ReadonlySet<string> = new Set(ACCOUNTING_EXCLUSIONS);
export const isAccountingExclusion = (value: string): value is AccountingExclusion => EXCLUSIONS.has(value);
