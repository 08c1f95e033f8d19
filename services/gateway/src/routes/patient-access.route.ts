import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type Clock } from '@audit/shared/contract';
import type { IntegrityStore } from '@audit/shared/integrity';
import { ValidationError } from '@audit/shared/platform';
import type { EventFilters } from '@audit/shared/projection';
import {
  arrangeReport,
  FHIR_JSON,
  fhirBundle,
  pageAfter,
  patientAccessAuditEvent,
  patientAccessCsv,
  renderPatientAccessPdf,
  reportHeading,
  reportRows,
  ReportTooLargeError,
  resolveWindow,
  MAX_REPORT_ROWS,
  type PatientAccessReport,
  type ReportEvent,
  type ReportReader,
} from '@audit/shared/reports';
import { apiKeyActor } from '../domain/api-key-actor.js';
import type { ApiCall } from '../domain/api-call.js';
import { decodeReportCursor, encodeReportCursor } from '../domain/cursor.js';
import {
  parsePatientAccessQuery,
  patientAccessQuerySchema,
  reportBinding,
  type PatientAccessQuery,
} from '../domain/patient-access-query.js';
import { apiCallOf, auditWriter, unavailable } from '../plugins/public-api.plugin.js';
import { patientAccessReportSchema } from '../schemas/patient-access.schema.js';
import { apiRoute, type ApiRoute } from './api-route.js';
import { narrowedFilters } from './narrowed-filters.js';

export const patientAccessRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/reports/patient-access',
  scope: 'audit:read',
  narrowable: true,
  statuses: [403, 422],
  operationId: 'getPatientAccessReport',
  tags: ['Reports'],
  summary: "Who saw a patient's records: an access report and a HIPAA accounting of disclosures.",
  description:
    'Every event naming the patient in the window (default: the last six years), each marked as a use, a disclosure HIPAA 164.528(a)(1) excludes (and why), or a reportable disclosure, with the checkpoint that covers it. `mode=accounting` keeps only the reportable disclosures. Sorted by any column. `json` is paged; `csv`, `pdf` (to send the patient) and `fhir` (an R4 Bundle of IHE BALP AuditEvents) are the whole report. Every report read is itself recorded as an `audit.report.patient_access` event naming the patient (docs/reports.md).',
  requestParams: { query: patientAccessQuerySchema },
  ok: {
    description: 'The report, in the format asked for.',
    content: {
      'application/json': { schema: patientAccessReportSchema },
      'text/csv': {
        schema: z.string().meta({ description: 'RFC 4180, CRLF, UTF-8 (docs/reports.md "CSV").' }),
      },
      'application/pdf': {
        schema: z.string().meta({ format: 'binary', description: 'US Letter, every page numbered.' }),
      },
      [FHIR_JSON]: {
        schema: z
          .object({ resourceType: z.literal('Bundle') })
          .loose()
          .meta({ description: 'An R4 Bundle (searchset) of AuditEvents (docs/fhir.md).' }),
      },
    },
  },
};

export interface PatientAccessOptions {
  /** The report's events, newest first (readReportEvents over the live generation). */
  reportEvents(tenantId: string, filters: EventFilters & { patient_id: string }): Promise<ReportEvent[]>;
  integrity: Pick<IntegrityStore, 'coveringCheckpoints'>;
  /** The tenant's name as an operator gave it, or null. */
  tenantName(tenantId: string): Promise<string | null>;
  auditLog: Parameters<typeof auditWriter>[0]['auditLog'];
  auditTimeoutMs: number;
  cursorSecret: string;
  clock: Clock;
}

const invalidCursor = () =>
  new ValidationError('Invalid cursor.', [
    { field: 'cursor', message: 'is malformed, was altered, or was issued for another report' },
  ]);

/** The window and where the page begins: settled by the first page, carried by its cursor after it. */
function resume(q: PatientAccessQuery, tenantId: string, secret: string, now: number) {
  if (q.cursor === undefined) return { window: resolveWindow(q, now), after: null };
  const position = decodeReportCursor(q.cursor, reportBinding(tenantId, q), secret);
  if (!position) throw invalidCursor();
  return { window: resolveWindow({ ...q, until: q.until ?? position.until }, now), after: position.after };
}

/** The API key (or the viewer token acting for it) as the reader of a report. */
const readerOf = (call: ApiCall): ReportReader => ({
  tenant_id: call.principal.tenantId,
  ...apiKeyActor(call),
});

/** The whole report as a file: the body and how it is sent. */
async function file(format: 'csv' | 'pdf' | 'fhir', report: PatientAccessReport, requestUrl: string) {
  const name = `patient-access-report.${format === 'fhir' ? 'json' : format}`;
  if (format === 'csv') return { type: 'text/csv; charset=utf-8', name, body: patientAccessCsv(report.rows) };
  if (format === 'pdf') return { type: 'application/pdf', name, body: await renderPatientAccessPdf(report) };
  return { type: `${FHIR_JSON}; charset=utf-8`, name, body: JSON.stringify(fhirBundle(report, requestUrl)) };
}

export function patientAccessRoutes(app: FastifyInstance, opts: PatientAccessOptions): void {
  const audit = auditWriter(opts);
  apiRoute<{ Querystring: Record<string, unknown> }>(
    app,
    patientAccessRoute,
    async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply: FastifyReply) => {
      const parsed = parsePatientAccessQuery(request.query ?? {});
      if (!parsed.ok) throw new ValidationError('Invalid query parameters.', parsed.errors);
      const q = parsed.query;
      const tenant = request.principal!.tenantId;
      const now = opts.clock();
      const { window, after } = resume(q, tenant, opts.cursorSecret, now);
      if (window.since >= window.until) {
        throw new ValidationError('Invalid query parameters.', [
          { field: 'since', message: 'must be earlier than until' },
        ]);
      }
      const filters = narrowedFilters(request.principal!, { ...window, patient_id: q.patientId });
      const [events, tenantName] = await Promise.all([
        opts.reportEvents(tenant, { ...filters, patient_id: q.patientId }).catch((err: unknown) => {
          if (!(err instanceof ReportTooLargeError)) return unavailable('clickhouse')(err);
          throw new ValidationError('The report is too large.', [
            {
              field: 'since',
              message: `the window holds more than ${MAX_REPORT_ROWS} events of this patient: narrow it`,
            },
          ]);
        }),
        opts.tenantName(tenant).catch(unavailable('postgres')),
      ]);
      const all = await reportRows(opts.integrity, tenant, events).catch(unavailable('postgres'));
      const { rows: shown, counts } = arrangeReport(all, q);
      const page = q.format === 'json' ? pageAfter(shown, after, q.limit) : { rows: shown, hasMore: false };
      if (!page) throw invalidCursor();
      const heading = reportHeading({
        tenantId: tenant,
        tenantName,
        patientId: q.patientId,
        window,
        mode: q.mode,
        now,
      });
      // Made before it is recorded, recorded before any row leaves: a report without its audit event never happens.
      const sent =
        q.format === 'json' ? null : await file(q.format, { heading, rows: page.rows }, request.url);
      await audit(
        patientAccessAuditEvent(readerOf(apiCallOf(request)), randomUUID(), {
          success: true,
          patientId: q.patientId,
          window,
          mode: q.mode,
          format: q.format,
          rows: page.rows.length,
        }),
      );
      if (sent) {
        return reply
          .type(sent.type)
          .header('content-disposition', `attachment; filename="${sent.name}"`)
          .send(sent.body);
      }
      const last = page.rows.at(-1);
      return patientAccessReportSchema.parse({
        report: { ...heading, sort: q.sort, order: q.order },
        counts,
        rows: page.rows,
        page: {
          limit: q.limit,
          returned: page.rows.length,
          next_cursor:
            page.hasMore && last
              ? encodeReportCursor(window.until, last.event_id, reportBinding(tenant, q), opts.cursorSecret)
              : null,
          has_more: page.hasMore,
        },
      });
    },
    {
      onScopeDenied: (request: FastifyRequest) =>
        audit(
          patientAccessAuditEvent(readerOf(apiCallOf(request)), randomUUID(), {
            success: false,
            reason: 'missing scope audit:read',
          }),
        ),
    },
  );
}
