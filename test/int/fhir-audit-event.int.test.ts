import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEventView } from '@audit/shared/contract';
import { sampleHeading, sampleView } from '@audit/shared/test-support';
import {
  fhirAuditEvent,
  fhirBundle,
  fhirReportAuditEvent,
  type PatientAccessRow,
} from '@audit/shared/reports';
import { startFhirValidator, type FhirValidator, type Issue } from '../support/fhir-validator.js';

// What the service emits as FHIR (docs/fhir.md), shown valid R4 by HAPI FHIR's validator: every pattern, with and
// without each optional part, failures, and text far from ASCII. Warnings are allowed and listed at the end.

const base = sampleView({
  tenant_id: 'acme-health.eu_1',
  resource_type: 'lab_result',
  user_agent: 'EHR/2.1 (Linux)',
});

const bare: Partial<AuditEventView> = {
  user_role: '',
  source_ip: '',
  user_agent: '',
  justification: '',
  patient_id: '',
  purpose_of_use: '',
  resource_id: '',
  fields_accessed: '[]',
};

const unicode: Partial<AuditEventView> = {
  user_id: 'Zoë "Z" Ñúñez 🩺',
  user_role: 'медсестра',
  resource_type: 'résultat de labo: sang/urine',
  resource_id: '検査-7',
  fields_accessed: '["date de naissance","<b>ssn</b>","עברית"]',
  justification: 'study 12,\r\nsecond line\tand a tab',
  patient_id: 'p 1042 / ü',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) «ünïcödé»',
};

const events: [string, Partial<AuditEventView>][] = [
  ['PatientRead', {}],
  ['PatientRead, nothing optional', bare],
  ['PatientRead, IPv6 and no User-Agent', { source_ip: '2001:db8::1', user_agent: '' }],
  ['PatientRead, User-Agent and no address', { source_ip: '' }],
  ['PatientCreate', { action: 'allergy.create' }],
  ['PatientUpdate, failed', { action: 'phi.update', success: false }],
  ['PatientDelete', { action: 'note.remove', purpose_of_use: 'HOPERAT' }],
  ['PatientQuery', { action: 'patient.search', resource_id: '', fields_accessed: '[]' }],
  ['PatientQuery, failed, nothing optional', { ...bare, action: 'patient.list', success: false }],
  ['Patient Record (no REST verb)', { action: 'phi.export', purpose_of_use: 'BTG' }],
  ['Patient Record, nothing optional', { ...bare, action: 'phi.print' }],
  ['PrivacyDisclosure', { action: 'phi.disclose', disclosure: true, recipient: 'Acme Research, 1 Main St' }],
  [
    'PrivacyDisclosure, failed',
    { action: 'phi.disclose', disclosure: true, recipient: 'CDC', success: false },
  ],
  ['PrivacyDisclosure, no recipient, no purpose', { disclosure: true, purpose_of_use: '', patient_id: '' }],
  ['PrivacyDisclosure, nothing optional', { ...bare, action: 'phi.disclose', disclosure: true }],
  ['unicode text everywhere', { ...unicode, disclosure: true, recipient: 'Université de Genève — 研究所' }],
  ['unicode text, failed read', { ...unicode, success: false }],
  [
    'text kept as sent: edge spaces and control characters',
    { user_id: ' u-1 ', user_role: 'nurse\u0007', justification: '\u0000why', resource_id: 'r\u001f7 ' },
  ],
];

const heading = sampleHeading({ tenant_id: 'acme-health.eu_1' });

/** A report row of an event: every other one covered by a checkpoint, its tree beyond what unsignedInt holds. */
function rowOf(event: AuditEventView, i: number): PatientAccessRow {
  const checkpoint = i % 2 === 0 ? null : { tree_size: 2 ** 40 + i, signed_at: event.timestamp };
  return {
    ...event,
    event_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    fields_accessed: JSON.parse(event.fields_accessed) as string[],
    purpose_display: '',
    accounting_status: event.disclosure ? 'reportable' : 'use',
    exclusion: null,
    checkpoint,
  };
}

let validator: FhirValidator;
const warnings = new Map<string, number>();

/** The resource's issues, its warnings counted for the summary; fails on any error, showing every issue. */
async function expectValid(resource: unknown) {
  const issues = await validator.validate(resource);
  for (const issue of issues.filter((i) => i.severity === 'warning' || i.severity === 'information')) {
    const key = `${issue.severity}: ${issue.message}`;
    warnings.set(key, (warnings.get(key) ?? 0) + 1);
  }
  const errors = issues.filter((i: Issue) => i.severity === 'error' || i.severity === 'fatal');
  expect(errors, `${JSON.stringify(resource, null, 2)}\n${JSON.stringify(issues, null, 2)}`).toEqual([]);
}

// The first run fetches the jars (test/int/fhir-validator.int.test.ts says how long that takes).
beforeAll(async () => {
  validator = await startFhirValidator();
}, 900_000);

afterAll(async () => {
  await validator?.close();
  const lines = [...warnings].map(([message, count]) => `  ${count} × ${message}`);
  console.info(`HAPI's warnings and information on what we emit:\n${lines.join('\n')}`);
});

describe('HAPI FHIR finds no error in', () => {
  it.each(events)('the AuditEvent of an event: %s', async (_, event) => {
    await expectValid(fhirAuditEvent({ ...base, ...event }));
  });

  it('a report row carrying its checkpoint, and one newer than every checkpoint', async () => {
    const event = { ...base, disclosure: true, recipient: 'Acme Research' };
    await expectValid(fhirReportAuditEvent(heading, rowOf(event, 1)));
    await expectValid(fhirReportAuditEvent(heading, rowOf(event, 0)));
  });

  it('the report as a Bundle of every event above', async () => {
    const rows = events.map(([, event], i) => rowOf({ ...base, ...event }, i));
    await expectValid(fhirBundle({ heading, rows }));
  });

  it('the Bundle of a report with no row', async () => {
    await expectValid(fhirBundle({ heading, rows: [] }));
  });
});
