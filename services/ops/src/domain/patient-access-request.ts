import { z } from 'zod';
import { checkWindow, FILTERS } from '@audit/shared/projection';
import { PATIENT_ACCESS_FORMATS, REPORT_MODES, SORT_COLUMNS } from '@audit/shared/reports';
import { parseOptions } from './cli-options.js';
import { tenantOption } from './tenant-request.js';

/**
 * `reports patient-access` options, checked by the rules the API checks its query by (the patient, the times), so
 * that an operator's report and a client's of the same window are the same report.
 */
export const patientAccessSchema = z
  .object({
    tenant: tenantOption,
    patient: z.string({ error: 'is required' }).pipe(FILTERS.patient_id.query),
    since: FILTERS.since.query.optional(),
    until: FILTERS.until.query.optional(),
    mode: z.enum(REPORT_MODES, { error: 'must be access or accounting' }).default('access'),
    sort: z.enum(SORT_COLUMNS, { error: `must be one of ${SORT_COLUMNS.join(', ')}` }).default('timestamp'),
    order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).default('desc'),
    format: z
      .enum(PATIENT_ACCESS_FORMATS, { error: `must be one of ${PATIENT_ACCESS_FORMATS.join(', ')}` })
      .default('json'),
    out: z.string().min(1, 'must be a file path').optional(),
  })
  .superRefine(checkWindow)
  .refine((r) => r.format !== 'pdf' || r.out !== undefined, {
    message: 'is required with --format pdf: a PDF is not text for a terminal',
    path: ['out'],
  });

export type PatientAccessRequest = z.output<typeof patientAccessSchema>;

export const parsePatientAccessRequest = (values: Record<string, unknown>) =>
  parseOptions(patientAccessSchema, values);
