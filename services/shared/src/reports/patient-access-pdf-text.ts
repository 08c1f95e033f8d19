import type { PatientAccessHeading, ReportMode } from './patient-access-report.js';
import type { Paragraph, TextStyle } from './pdf-text-layout.js';

const BODY: TextStyle = { weight: 'regular', size: 9, color: '#111111' };
const SMALL: TextStyle = { ...BODY, size: 8, color: '#555555' };

const TITLES: Record<ReportMode, string> = {
  accounting: 'Accounting of disclosures',
  access: 'Access report',
};

const SUBJECTS: Record<ReportMode, string> = {
  accounting: 'Accounting of disclosures of protected health information (HIPAA, 45 CFR 164.528)',
  access: 'Accesses to and disclosures of protected health information',
};

/** A time as the API gives it (any offset), in UTC to the second. */
const utcTime = (text: string): string =>
  `${new Date(text).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

// A bound at midnight is shown as its date alone; any other keeps its time, or "to before" a date would leave out
// or take in part of that day.
function bound(text: string): string {
  const iso = new Date(text).toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** The period a report covers; its upper bound is exclusive, which "to before" says. */
const period = ({ since, until }: PatientAccessHeading): string =>
  `${bound(since)} to before ${bound(until)} (UTC)`;

export function headingParagraphs(heading: PatientAccessHeading, rowCount: number): Paragraph[] {
  return [
    { text: heading.tenant_name, style: { ...BODY, weight: 'bold', size: 16 } },
    { text: TITLES[heading.mode], style: { ...BODY, weight: 'bold', size: 12 } },
    { text: `Patient: ${heading.patient_id}`, style: BODY },
    { text: `Period: ${period(heading)}`, style: BODY },
    { text: `Events listed: ${rowCount}`, style: BODY },
    { text: `Generated at: ${utcTime(heading.generated_at)}`, style: SMALL },
  ];
}

const OPENINGS: Record<ReportMode, (tenant: string) => string> = {
  access: (tenant) =>
    `This report lists every recorded access to or disclosure of your health information at ${tenant} in the ` +
    'period above, one row per event.',
  accounting: (tenant) =>
    `This accounting lists the disclosures of your health information by ${tenant} in the period above that you ` +
    'are owed an accounting of under the HIPAA Privacy Rule (45 CFR 164.528), one row per disclosure.',
};

/** What a patient needs to read the table. */
export function explanationParagraphs(heading: PatientAccessHeading): Paragraph[] {
  const texts = [
    `${OPENINGS[heading.mode](heading.tenant_name)} Each row says when it happened (in UTC), who did it (their ` +
      'user id and role), what they did and to which record, the purpose of use they gave and their ' +
      'justification, to whom the information was disclosed, and whether it succeeded.',
    'Status is "use" for a use within the organization, which is not a disclosure; "reportable" for a ' +
      'disclosure you are owed an accounting of; and "excluded" for a disclosure the Privacy Rule leaves out of ' +
      'an accounting, with the paragraph of 164.528(a)(1) that leaves it out.',
    'Under each row are its event id and the tree size of the first signed checkpoint of the audit log that ' +
      'includes it. The log is tamper-evident: quote both to ask for a proof that the event is in the log as ' +
      'shown and has not been changed since.',
  ];
  return texts.map((text) => ({ text, style: BODY }));
}

/** What a report without rows says instead of its table. */
export function noRowsParagraph({ mode }: PatientAccessHeading): Paragraph {
  const text =
    mode === 'access'
      ? 'No access to or disclosure of your health information was recorded in this period.'
      : 'No disclosure of your health information that you are owed an accounting of was recorded in this period.';
  return { text, style: { ...BODY, weight: 'bold' } };
}

export function footerParagraph(heading: PatientAccessHeading): Paragraph {
  return { text: `${TITLES[heading.mode]} · Patient ${heading.patient_id}`, style: SMALL };
}

export const pageNumberParagraph = (page: number, pages: number): Paragraph => ({
  text: `Page ${page} of ${pages}`,
  style: SMALL,
});

/**
 * The document's metadata. Its dates are the report's generation time, never the time of rendering, so that
 * one report renders to the same bytes every time: pdfkit derives the file's id from these fields too.
 */
export function documentInfo(heading: PatientAccessHeading): PDFKit.DocumentInfo {
  const generated = new Date(heading.generated_at);
  return {
    Title: `${TITLES[heading.mode]}: patient ${heading.patient_id}`,
    Author: heading.tenant_name,
    Subject: `${SUBJECTS[heading.mode]}, ${period(heading)}`,
    Creator: 'Audit trail service',
    CreationDate: generated,
    ModDate: generated,
  };
}
