// Writes docs/reports/patient-access-page.png: the first page of a sample patient access report as the PDF writer
// renders it (services/shared/src/reports/patient-access-pdf.writer.ts), at 60 dpi, through poppler's pdftoppm
// (Debian's poppler-utils: scripts/ensure-poppler.sh). Run it again after a change to the report's layout:
//   npx tsx scripts/patient-access-picture.ts
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PURPOSE_OF_USE, type AccountingExclusion } from '@audit/shared/contract';
import {
  accountingOf,
  renderPatientAccessPdf,
  type PatientAccessReport,
  type PatientAccessRow,
} from '@audit/shared/reports';

const OUT = fileURLToPath(new URL('../docs/reports/patient-access-page.png', import.meta.url));

/** What a sample event says; the rest of its row follows from it as the report's reader derives it. */
interface Sample {
  at: string;
  user: [id: string, role: string];
  did: [action: string, resourceType: string, resourceId: string];
  fields?: string[];
  purpose: string;
  justification?: string;
  /** A disclosure's recipient, and the exclusion its producer named if any. */
  to?: [recipient: string, exclusion?: AccountingExclusion];
  failed?: boolean;
}

const SAMPLES: Sample[] = [
  {
    at: '2026-03-02T08:14:09',
    user: ['dr.chen@riverside.example', 'attending physician'],
    did: ['phi.read', 'Patient', 'pt-48213'],
    fields: ['name', 'dob', 'allergies'],
    purpose: 'TREAT',
    justification: 'Admission history and physical',
  },
  {
    at: '2026-03-02T09:40:51',
    user: ['rn.okafor', 'registered nurse'],
    did: ['phi.update', 'Observation', 'obs-77120'],
    fields: ['vital_signs'],
    purpose: 'TREAT',
  },
  {
    at: '2026-03-02T16:05:33',
    user: ['Zoë Ñúñez', 'pharmacist'],
    did: ['phi.read', 'MedicationRequest', 'rx-5531'],
    fields: ['medications', 'allergies'],
    purpose: 'TREAT',
    justification: 'Interaction check before dispensing',
  },
  {
    at: '2026-03-04T11:22:07',
    user: ['hie-gateway', 'system'],
    did: ['phi.disclose', 'DocumentReference', 'ccd-2026-0304'],
    purpose: 'COC',
    to: ['Dr. 李雷, Pacific Cardiology'],
  },
  {
    at: '2026-03-09T13:47:18',
    user: ['billing.ramos', 'billing specialist'],
    did: ['phi.disclose', 'Claim', 'clm-990412'],
    fields: ['diagnosis_codes', 'procedure_codes'],
    purpose: 'HPAYMT',
    to: ['Blue Harbor Health Plan'],
  },
  {
    at: '2026-03-15T10:03:44',
    user: ['contractor.jsmith', 'IT contractor'],
    did: ['phi.read', 'Patient', 'pt-48213'],
    purpose: 'HSYSADMIN',
    justification: 'Ticket INC-20417: restore a failed interface message',
    failed: true,
  },
  {
    at: '2026-03-21T15:30:00',
    user: ['portal', 'system'],
    did: ['phi.disclose', 'Bundle', 'export-7781'],
    purpose: 'PATRQT',
    to: ['The patient, through the patient portal', 'to_individual'],
  },
  {
    at: '2026-04-02T09:12:25',
    user: ['hi.morales', 'health information clerk'],
    did: ['phi.disclose', 'DocumentReference', 'discharge-summary-0402'],
    purpose: 'PUBHLTH',
    justification: 'Reportable condition: notifiable disease report required by state law within 24 hours',
    to: ['County Public Health Department'],
  },
  {
    at: '2026-04-18T14:55:02',
    user: ['roi.patel', 'release of information specialist'],
    did: ['phi.disclose', 'DocumentReference', 'records-2025-2026'],
    purpose: 'HLEGAL',
    justification: 'Signed authorization on file (form ROI-12, dated 2026-04-10)',
    to: ['Meyer & Díaz LLP', 'authorized'],
  },
  {
    at: '2026-05-06T08:01:40',
    user: ['dr.haddad', 'radiologist'],
    did: ['phi.read', 'ImagingStudy', 'img-33019'],
    purpose: 'TREAT',
  },
  {
    at: '2026-05-12T17:26:13',
    user: ['research.etl', 'system'],
    did: ['phi.disclose', 'Bundle', 'cohort-2026-114'],
    fields: ['dob', 'diagnosis_codes', 'lab_results'],
    purpose: 'HRESCH',
    justification: 'Northbay University IRB protocol 2026-114, waiver of authorization approved 2026-02-20',
    to: ['Northbay University Cardiology Outcomes Study'],
  },
  {
    at: '2026-05-30T12:44:56',
    user: ['qa.lindqvist', 'quality analyst'],
    did: ['phi.read', 'Encounter', 'enc-20260302'],
    purpose: 'HQUALIMP',
  },
  {
    at: '2026-06-11T10:18:31',
    user: ['hi.morales', 'health information clerk'],
    did: ['phi.disclose', 'DocumentReference', 'immunizations'],
    purpose: 'PUBHLTH',
    to: ['State Immunization Information System', 'limited_data_set'],
  },
  {
    at: '2026-06-24T07:59:12',
    user: ['dr.chen@riverside.example', 'attending physician'],
    did: ['phi.read', 'Observation', 'lab-88412'],
    fields: ['lab_results'],
    purpose: 'TREAT',
  },
  {
    at: '2026-06-30T21:37:05',
    user: ['ed.triage', 'emergency nurse'],
    did: ['phi.read', 'Patient', 'pt-48213'],
    fields: ['allergies', 'medications'],
    purpose: 'ETREAT',
    justification: 'Break-the-glass access in the emergency department',
  },
];

/** The notary's checkpoints in this sample cover every event but the last two. */
const CHECKPOINTED = SAMPLES.length - 2;

function rowOf(sample: Sample, i: number): PatientAccessRow {
  const timestamp = `${sample.at}.000+00:00`;
  const [recipient = '', exclusion = ''] = sample.to ?? [];
  const { status, exclusion: excluded } = accountingOf({
    disclosure: sample.to !== undefined,
    success: !sample.failed,
    accounting_exclusion: exclusion,
    purpose_of_use: sample.purpose,
    timestampMs: Date.parse(timestamp),
  });
  return {
    event_id: `0196d2a4-7c1e-7b3a-9f21-${String(4810 + i * 37).padStart(12, '0')}`,
    timestamp,
    user_id: sample.user[0],
    user_role: sample.user[1],
    action: sample.did[0],
    resource_type: sample.did[1],
    resource_id: sample.did[2],
    fields_accessed: sample.fields ?? [],
    phi_involved: true,
    purpose_of_use: sample.purpose,
    purpose_display: PURPOSE_OF_USE.get(sample.purpose)?.display ?? '',
    justification: sample.justification ?? '',
    disclosure: sample.to !== undefined,
    recipient,
    success: !sample.failed,
    source_ip: '10.20.4.17',
    accounting_status: status,
    exclusion: excluded,
    checkpoint:
      i < CHECKPOINTED
        ? { tree_size: 1_204_311 + i * 5_113, signed_at: `${sample.at.slice(0, 10)}T23:00:00.000+00:00` }
        : null,
  };
}

const report: PatientAccessReport = {
  heading: {
    tenant_id: 'riverside',
    tenant_name: 'Riverside Community Hospital',
    patient_id: 'MRN-0048213',
    since: '2026-03-01T00:00:00.000+00:00',
    until: '2026-07-01T00:00:00.000+00:00',
    mode: 'access',
    generated_at: '2026-07-01T14:05:12.000+00:00',
  },
  rows: SAMPLES.map(rowOf),
};

const pdf = await renderPatientAccessPdf(report);
// pdftoppm reads the PDF from standard input and, with -singlefile, writes the one page's PNG to standard output.
const png = execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', '-singlefile', '-'], {
  input: pdf,
  maxBuffer: 64 << 20,
});
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, png);
console.log(`${OUT}: ${png.length} bytes, the first page of ${report.rows.length} rows`);
