import { randomUUID } from 'node:crypto';
import type { AuditPublisher } from '@audit/shared/audit-topic';
import type { EventFilters } from '@audit/shared/projection';
import {
  fhirBundle,
  MAX_REPORT_ROWS,
  patientAccessAuditEvent,
  patientAccessCsv,
  renderPatientAccessPdf,
  ReportTooLargeError,
  arrangeReport,
  reportHeading,
  type AccountingStatus,
  type PatientAccessReport,
  type PatientAccessRow,
} from '@audit/shared/reports';
import type { Operator } from '../domain/key-audit-event.js';
import type { PatientAccessRequest } from '../domain/patient-access-request.js';
import { CliError } from './cli-error.js';

/** What a report is made from, and where its read is recorded. */
export interface PatientAccessContext {
  /** Every event naming the patient in the window, as rows with their checkpoints (readPatientAccess). */
  rows(tenant: string, filters: EventFilters & { patient_id: string }): Promise<PatientAccessRow[]>;
  /** The tenant's name as an operator gave it, or null. */
  tenantName(tenant: string): Promise<string | null>;
  publisher: Pick<AuditPublisher, 'publish'>;
  operator: Operator;
}

/** A report as it leaves: its body in the format asked for, and the id its read is recorded under. */
export interface MadeReport {
  reportId: string;
  rows: number;
  body: string | Buffer;
}

/** The body of a report: JSON as the API's first page of all of it, or the file the API gives. */
async function bodyOf(
  r: PatientAccessRequest,
  report: PatientAccessReport,
  counts: Record<AccountingStatus, number>,
): Promise<string | Buffer> {
  switch (r.format) {
    case 'json':
      return JSON.stringify({
        report: { ...report.heading, sort: r.sort, order: r.order },
        counts,
        rows: report.rows,
      });
    case 'csv':
      return patientAccessCsv(report.rows);
    case 'pdf':
      return renderPatientAccessPdf(report);
    case 'fhir':
      return JSON.stringify(fhirBundle(report));
  }
}

/**
 * A patient access report made as the API makes it (docs/reports.md), read by the operator. Its read is recorded
 * before it is given: the body is returned only once Kafka has its `audit.report.patient_access` event, so that a
 * report without its audit event never leaves.
 */
export async function patientAccessReport(
  ctx: PatientAccessContext,
  r: PatientAccessRequest,
  window: { since: number; until: number },
  now: number,
): Promise<MadeReport> {
  const [all, name] = await Promise.all([
    ctx.rows(r.tenant, { ...window, patient_id: r.patient }).catch((err: unknown) => {
      if (!(err instanceof ReportTooLargeError)) throw err;
      throw new CliError(
        `the window holds more than ${MAX_REPORT_ROWS} events of patient ${r.patient}: narrow it with --since ` +
          'and --until',
        2,
      );
    }),
    ctx.tenantName(r.tenant),
  ]);
  const { rows, counts } = arrangeReport(all, r);
  const heading = reportHeading({
    tenantId: r.tenant,
    tenantName: name,
    patientId: r.patient,
    window,
    mode: r.mode,
    now,
  });
  const body = await bodyOf(r, { heading, rows }, counts);
  const reportId = randomUUID();
  const reader = {
    tenant_id: r.tenant,
    user_id: ctx.operator.id,
    user_role: 'operator',
    source_ip: '',
    user_agent: 'audit-ops-cli',
  };
  const outcome = { success: true as const, patientId: r.patient, window, mode: r.mode, format: r.format };
  await ctx.publisher
    .publish([patientAccessAuditEvent(reader, reportId, { ...outcome, rows: rows.length })])
    .catch((err: unknown) => {
      throw new CliError(
        `the report's audit event could not be written (${(err as Error).message}): no report was given`,
      );
    });
  return { reportId, rows: rows.length, body };
}
