import { describe, expect, it } from 'vitest';
import type { PatientAccessHeading, PatientAccessReport, PatientAccessRow } from './patient-access-report.js';
import { renderPatientAccessPdf } from './patient-access-pdf.writer.js';
import { pdfDrawnText, pdfText, poppler } from '../../../../test/support/poppler.js';

const info = (pdf: Buffer) => poppler('pdfinfo', ['-isodates', '-'], pdf);

const HEADING: PatientAccessHeading = {
  tenant_id: 'tenant-1',
  tenant_name: 'Riverside Community Hospital',
  patient_id: 'MRN-0012345',
  since: '2026-01-01T00:00:00.000+00:00',
  until: '2026-11-21T00:00:00.000+00:00',
  mode: 'access',
  generated_at: '2026-11-21T09:30:00.123+00:00',
};

const row = (i: number, changes: Partial<PatientAccessRow> = {}): PatientAccessRow => ({
  event_id: `0193a1b2-c3d4-7e5f-8a9b-${String(i).padStart(12, '0')}`,
  timestamp: new Date(Date.UTC(2026, 0, 2) + i * 3_600_000).toISOString().replace('Z', '+00:00'),
  user_id: `dr.user${i % 13}@clinic.example`,
  user_role: 'physician',
  action: 'phi.read',
  resource_type: 'Observation',
  resource_id: `obs-${i}`,
  fields_accessed: ['dob', 'diagnosis'],
  phi_involved: true,
  purpose_of_use: 'TREAT',
  purpose_display: 'treatment',
  justification: 'Follow-up visit',
  disclosure: false,
  recipient: '',
  success: true,
  source_ip: '10.0.0.1',
  accounting_status: 'use',
  exclusion: null,
  checkpoint: { tree_size: 1000 + i, signed_at: '2026-11-21T10:00:00.000+00:00' },
  ...changes,
});

const report = (
  rows: PatientAccessRow[],
  heading: Partial<PatientAccessHeading> = {},
): PatientAccessReport => ({
  heading: { ...HEADING, ...heading },
  rows,
});

const pageCount = async (pdf: Buffer) => Number(/^Pages:\s+(\d+)$/m.exec(await info(pdf))![1]);

describe('renderPatientAccessPdf', () => {
  it('renders a report without rows as its heading and a sentence saying none', async () => {
    const pdf = await renderPatientAccessPdf(report([]));
    const read = await pdfText(pdf);
    expect(read).toContain('Riverside Community Hospital');
    expect(read).toContain('Access report');
    expect(read).toContain('Patient: MRN-0012345');
    expect(read).toContain('Period: 2026-01-01 to before 2026-11-21 (UTC)');
    expect(read).toContain('Generated at: 2026-11-21 09:30:00 UTC');
    expect(read).toContain(
      'No access to or disclosure of your health information was recorded in this period.',
    );
    expect(read).not.toContain('Date (UTC)');
    expect(read).toContain('Page 1 of 1');
  });

  it('shows Unicode names exactly, every event id, and each row status', async () => {
    const name = 'Zoë Ñúñez 李雷';
    const rows = [
      row(1, { user_id: name, user_role: 'nurse' }),
      row(2, {
        action: 'phi.disclose',
        disclosure: true,
        recipient: name,
        purpose_of_use: 'HPAYMT',
        purpose_display: 'healthcare payment',
        accounting_status: 'excluded',
        exclusion: 'treatment_payment_operations',
      }),
      row(3, {
        action: 'phi.disclose',
        disclosure: true,
        recipient: 'Ελένη Πάππα',
        accounting_status: 'reportable',
      }),
      row(4, { success: false, checkpoint: null }),
    ];
    const pdf = await renderPatientAccessPdf(
      report(rows, { mode: 'accounting', tenant_name: 'Clínica São José' }),
    );
    const read = await pdfText(pdf);
    expect(read).toContain('Clínica São José');
    expect(read).toContain('Accounting of disclosures');
    expect(read.split(name)).toHaveLength(3);
    expect(read).toContain('Ελένη Πάππα');
    for (const r of rows) expect(read).toContain(`Event id ${r.event_id}`);
    expect(read).toContain('checkpoint tree size 1001');
    expect(read).toContain('not yet in a signed checkpoint');
    expect(read).toContain('excluded: HIPAA');
    expect(read).toContain('164.528(a)(1)(i)');
    expect(read).toContain('reportable');
    expect(read).toContain('failure');
    expect(read).toContain('Page 1 of 1');
  });

  it('wraps a very long justification and a thousand fields across pages, cutting none of it off', async () => {
    const words = Array.from({ length: 300 }, (_, i) => `reason${String(i).padStart(3, '0')}`);
    const fields = Array.from({ length: 1000 }, (_, i) => `field_${String(i).padStart(4, '0')}`);
    const longId = `resource-${'x'.repeat(200)}-end`;
    const rows = [
      row(1),
      row(2, { justification: words.join(' '), fields_accessed: fields, resource_id: longId }),
    ];
    const pdf = await renderPatientAccessPdf(report(rows));
    const read = await pdfText(pdf);
    for (const word of [...words, ...fields]) expect(read).toContain(word);
    expect((await pdfDrawnText(pdf)).replace(/\s+/g, '')).toContain(longId);
    expect(read).toContain(`Event id ${rows[1]!.event_id}`);
    expect(await pageCount(pdf)).toBeGreaterThan(2);
  });

  it('repeats the table header on every page and numbers the pages of a long report', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => row(i));
    const pdf = await renderPatientAccessPdf(report(rows));
    const read = await pdfText(pdf);
    const pages = await pageCount(pdf);
    expect(pages).toBeGreaterThan(5);
    for (const r of rows) expect(read).toContain(r.event_id);
    expect(read).toContain(`Page 1 of ${pages}`);
    expect(read).toContain(`Page ${pages} of ${pages}`);
    expect(read.match(/Date \(UTC\)\s+Who\s+What\s+Purpose\s+Recipient\s+Status\s+Outcome/g)).toHaveLength(
      pages,
    );
  });

  it('renders the same report to the same bytes, its metadata from the report', async () => {
    const rows = [row(1, { user_id: 'Zoë Ñúñez 李雷' }), row(2)];
    const [first, second] = [
      await renderPatientAccessPdf(report(rows)),
      await renderPatientAccessPdf(report(rows)),
    ];
    expect(first.equals(second)).toBe(true);
    const meta = await info(first);
    expect(meta).toMatch(/^Title:\s+Access report: patient MRN-0012345$/m);
    expect(meta).toMatch(/^Author:\s+Riverside Community Hospital$/m);
    expect(meta).toMatch(/^CreationDate:\s+2026-11-21T09:30:00Z$/m);
    expect(meta).toMatch(/^Page size:\s+612 x 792 pts \(letter\)$/m);
  });
});
