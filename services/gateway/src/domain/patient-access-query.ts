import { z } from 'zod';
import { zodFieldErrors, type FieldError } from '@audit/shared/platform';
import { FILTERS, checkWindow } from '@audit/shared/projection';
import { cursorParam, DEFAULT_LIMIT, limitParam, MAX_LIMIT, repeatedParams } from './list-query.js';
import {
  PATIENT_ACCESS_FORMATS,
  REPORT_MODES,
  SORT_COLUMNS,
  type PatientAccessFormat,
  type ReportMode,
  type SortColumn,
  type SortOrder,
} from '@audit/shared/reports';

export const patientAccessQuerySchema = z
  .strictObject({
    patient_id: FILTERS.patient_id.query,
    since: FILTERS.since.query.optional(),
    until: FILTERS.until.query.optional(),
    mode: z.enum(REPORT_MODES, { message: 'must be access or accounting' }).default('access').meta({
      description:
        '`access`: every event naming the patient; `accounting`: only the disclosures the patient is owed (HIPAA 164.528).',
    }),
    sort: z
      .enum(SORT_COLUMNS, { message: `must be one of ${SORT_COLUMNS.join(', ')}` })
      .default('timestamp')
      .meta({ description: 'The column the rows are sorted by; ties in time order, then by event id.' }),
    order: z
      .enum(['asc', 'desc'], { message: 'must be asc or desc' })
      .default('desc')
      .meta({ description: 'The direction, for the column and its ties alike.' }),
    format: z
      .enum(PATIENT_ACCESS_FORMATS, { message: `must be one of ${PATIENT_ACCESS_FORMATS.join(', ')}` })
      .default('json')
      .meta({
        description:
          '`json`: a page of rows; `csv`, `pdf` and `fhir` (an R4 Bundle of AuditEvents): the whole report at once.',
      }),
    limit: limitParam(MAX_LIMIT, DEFAULT_LIMIT),
    cursor: cursorParam("The previous page's `next_cursor`, unmodified. Bound to the report it pages."),
  })
  .superRefine(checkWindow)
  .superRefine((q, ctx) => {
    // A file is the whole report: a page of one would be taken for all of it.
    if (q.format === 'json') return;
    for (const name of ['limit', 'cursor'] as const) {
      if (q[name] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'is for format json only: a file holds every row',
        });
      }
    }
  });

export interface PatientAccessQuery {
  patientId: string;
  /** As given: the window's defaults are settled when the report is first read (resolveWindow). */
  since?: number;
  until?: number;
  mode: ReportMode;
  sort: SortColumn;
  order: SortOrder;
  format: PatientAccessFormat;
  limit: number;
  cursor?: string;
}

export function parsePatientAccessQuery(
  query: Record<string, unknown>,
): { ok: true; query: PatientAccessQuery } | { ok: false; errors: FieldError[] } {
  const repeated = repeatedParams(query);
  if (repeated.length > 0) return { ok: false, errors: repeated };
  const parsed = patientAccessQuerySchema.safeParse(query);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error, '(query)') };
  const { patient_id, limit = DEFAULT_LIMIT, cursor, since, until, ...rest } = parsed.data;
  return {
    ok: true,
    query: {
      patientId: patient_id,
      ...rest,
      limit,
      ...(since !== undefined ? { since } : {}),
      ...(until !== undefined ? { until } : {}),
      ...(cursor !== undefined ? { cursor } : {}),
    },
  };
}

/** What a report's cursor is bound to: everything that decides its rows and their order, the window as given. */
export const reportBinding = (tenantId: string, q: PatientAccessQuery) =>
  `patient-access ${JSON.stringify([tenantId, q.patientId, q.since ?? null, q.until ?? null, q.mode, q.sort, q.order])}`;
