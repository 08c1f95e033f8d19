import { describe, expect, it } from 'vitest';
import { reportRow, type PatientAccessRow } from '@audit/shared/reports';
import { CliError } from './cli-error.js';
import { patientAccessReport, type PatientAccessContext } from './reports.command.js';

const NOW = Date.UTC(2026, 5, 1);
const WINDOW = { since: Date.UTC(2026, 0, 1), until: NOW };

/** A row of the patient's report: a use, or a disclosure the patient is owed. */
const row = (i: number, disclosure: boolean): PatientAccessRow =>
  reportRow(
    {
      event_id: `00000000-0000-4000-8000-00000000000${i}`,
      action: disclosure ? 'phi.disclose' : 'phi.read',
      user_id: `u-${i}`,
      user_role: 'clinician',
      resource_type: 'patient',
      resource_id: 'p-1',
      fields_accessed: '[]',
      phi_involved: true,
      source_ip: '',
      justification: '',
      success: true,
      purpose_of_use: disclosure ? 'PUBHLTH' : 'TREAT',
      recipient: disclosure ? 'County health dept.' : '',
      disclosure,
      accounting_exclusion: '',
    },
    Date.UTC(2026, 1, i),
    null,
  );

function context(publish: PatientAccessContext['publisher']['publish']) {
  const published: unknown[] = [];
  const ctx: PatientAccessContext = {
    rows: async () => [row(1, false), row(2, true), row(3, false)],
    tenantName: async () => 'Acme Clinic',
    publisher: {
      publish: async (events) => {
        published.push(...events);
        return publish(events);
      },
    },
    operator: { id: 'operator:test' },
  };
  return { ctx, published };
}

const request = {
  tenant: 'acme',
  patient: 'p-1',
  mode: 'accounting',
  sort: 'timestamp',
  order: 'asc',
  format: 'json',
} as const;

describe('patientAccessReport', () => {
  it('records the read, naming the operator and the patient, and gives the report in the mode asked for', async () => {
    const { ctx, published } = context(async () => ['id']);
    const made = await patientAccessReport(ctx, request, WINDOW, NOW);
    const body = JSON.parse(made.body as string) as Record<string, unknown>;
    expect(body.report).toMatchObject({ tenant_name: 'Acme Clinic', mode: 'accounting', sort: 'timestamp' });
    expect(body.counts).toEqual({ use: 2, attempted: 0, excluded: 0, reportable: 1 });
    expect((body.rows as PatientAccessRow[]).map((r) => r.user_id)).toEqual(['u-2']);
    expect(published).toEqual([
      expect.objectContaining({
        action: 'audit.report.patient_access',
        tenant_id: 'acme',
        user_id: 'operator:test',
        user_role: 'operator',
        user_agent: 'audit-ops-cli',
        patient_id: 'p-1',
        resource_id: made.reportId,
        details: expect.objectContaining({ mode: 'accounting', format: 'json', rows: 1 }),
      }),
    ]);
  });

  it('gives no report when its audit event cannot be written', async () => {
    const { ctx } = context(async () => {
      throw new Error('Kafka is down');
    });
    const failed = patientAccessReport(ctx, request, WINDOW, NOW);
    await expect(failed).rejects.toBeInstanceOf(CliError);
    await expect(failed).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringContaining('Kafka is down'),
    });
  });
});
