import { z } from 'zod';
import { EXPORT_JOB_FORMATS, type ExportJobFormat } from '@audit/shared/export-jobs';
import { zodFieldErrors, type FieldError } from '@audit/shared/platform';
import { FILTERS, checkWindow, filterShape, givenFilters, type EventFilters } from '@audit/shared/projection';
import { boundedWindow } from './bounded-window.js';
import { cursorParam, limitParam, repeatedParams } from './list-query.js';
import { nulFields } from './nul-free.js';

export const exportJobBodySchema = z
  .strictObject({
    ...filterShape('body'),
    // A job is bounded work: its window has a start, and a bounded length (checked against the configuration).
    since: FILTERS.since.body,
    format: z
      .enum(EXPORT_JOB_FORMATS, {
        error: (issue) => (issue.input === undefined ? 'is required' : 'must be ndjson, csv or parquet'),
      })
      .meta({
        description: 'The file: `ndjson` and `csv` are gzip-compressed, `parquet` has typed columns.',
        example: 'csv',
      }),
  })
  .superRefine(checkWindow)
  .meta({
    id: 'ExportJobRequest',
    description:
      "The list's filters (`since` required) and the file's format; no limit, no cursor. `until` defaults to the time the job is accepted.",
  });

/** A job's request as the API accepted it: the filters as given, and the window they fix. */
export interface AcceptedExportJob {
  format: ExportJobFormat;
  filters: EventFilters;
  since: number;
  until: number;
}

/**
 * The body of `POST /audit/exports`: every invalid, missing or unknown field is reported (422), and the window
 * (`until`, or else `now`, the time of acceptance, minus `since`) must be non-empty and at most `maxWindowDays`.
 */
export function parseExportJobRequest(
  body: unknown,
  opts: { now: number; maxWindowDays: number },
): { ok: true; job: AcceptedExportJob } | { ok: false; errors: FieldError[] } {
  // No body at all is a body without fields: what it lacks is then named field by field.
  const parsed = exportJobBodySchema.safeParse(body ?? {}, {
    error: (issue) => (issue.input === undefined ? 'is required' : undefined),
  });
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const { format } = parsed.data;
  const filters = givenFilters(parsed.data);
  const window = boundedWindow(parsed.data.since, filters.until, {
    now: opts.now,
    maxDays: opts.maxWindowDays,
  });
  const errors = [...nulFields(filters), ...(window.ok ? [] : window.errors)];
  if (!window.ok || errors.length > 0) return { ok: false, errors };
  return { ok: true, job: { format, filters, since: window.since, until: window.until } };
}

export const DEFAULT_JOBS_LIMIT = 20;
export const MAX_JOBS_LIMIT = 100;

export const exportJobsQuerySchema = z.strictObject({
  limit: limitParam(MAX_JOBS_LIMIT, DEFAULT_JOBS_LIMIT),
  cursor: cursorParam("The previous page's `next_cursor`, unmodified. Bound to the key's tenant."),
});

/** Query string of the jobs' list: unknown, repeated or invalid parameters are all reported (422). */
export function parseExportJobsQuery(
  query: Record<string, unknown>,
): { ok: true; limit: number; cursor?: string } | { ok: false; errors: FieldError[] } {
  const repeated = repeatedParams(query);
  if (repeated.length > 0) return { ok: false, errors: repeated };
  const parsed = exportJobsQuerySchema.safeParse(query);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error, '(query)') };
  const { limit = DEFAULT_JOBS_LIMIT, cursor } = parsed.data;
  return { ok: true, limit, ...(cursor ? { cursor } : {}) };
}
