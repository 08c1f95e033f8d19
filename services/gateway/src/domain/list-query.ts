import { z } from 'zod';
import { zodFieldErrors, type FieldError } from '@audit/shared/platform';
import { checkWindow, filterShape, givenFilters, type EventFilters } from '@audit/shared/projection';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** A page size from 1 to `max`: a query parameter is text, which must spell an integer in range. */
export const limitParam = (max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,7}$/, `must be an integer from 1 to ${max}`)
    .transform(Number)
    .pipe(z.number().min(1, `must be from 1 to ${max}`).max(max, `must be from 1 to ${max}`))
    .optional()
    .meta({
      description: 'Page size.',
      override: { type: 'integer', minimum: 1, maximum: max, default: fallback, pattern: undefined },
    });

export const cursorParam = (description: string) =>
  z.string().min(1).max(1024).optional().meta({ description });

/** A parameter given twice is refused, never resolved by picking one. */
export const repeatedParams = (query: Record<string, unknown>): FieldError[] =>
  Object.entries(query)
    .filter(([, v]) => Array.isArray(v))
    .map(([field]) => ({ field, message: 'must be given once' }));

export const listQuerySchema = z
  .strictObject({
    ...filterShape('query'),
    limit: limitParam(MAX_LIMIT, DEFAULT_LIMIT),
    cursor: cursorParam(
      "The previous page's `next_cursor`, unmodified. Bound to the key's tenant and the filters.",
    ),
  })
  .superRefine(checkWindow);

/** A page's request: its filters, its size and where it continues. */
export interface PagedQuery<Filters> {
  filters: Filters;
  limit: number;
  cursor?: string;
}

export type ListQuery = PagedQuery<EventFilters>;

/** A paged query string: unknown, repeated or invalid parameters are all reported (422), never ignored. */
export function parsePagedQuery<Data extends { limit?: number; cursor?: string }, Filters>(
  schema: z.ZodType<Data>,
  query: Record<string, unknown>,
  filtersOf: (data: Data) => Filters,
): { ok: true; query: PagedQuery<Filters> } | { ok: false; errors: FieldError[] } {
  const repeated = repeatedParams(query);
  if (repeated.length > 0) return { ok: false, errors: repeated };
  const parsed = schema.safeParse(query);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error, '(query)') };
  const { limit = DEFAULT_LIMIT, cursor } = parsed.data;
  return { ok: true, query: { filters: filtersOf(parsed.data), limit, ...(cursor ? { cursor } : {}) } };
}

/** Query string of the list. */
export const parseListQuery = (query: Record<string, unknown>) =>
  parsePagedQuery(listQuerySchema, query, givenFilters);

export const EXPORT_FORMATS = ['json', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const exportQuerySchema = z.strictObject({
  format: z
    .enum(EXPORT_FORMATS, { message: 'must be json or ndjson' })
    .default('json')
    .meta({ description: '`json`: the envelope; `ndjson`: one audit event per line.' }),
});

export const exportBodySchema = z
  .strictObject(filterShape('body'))
  .superRefine(checkWindow)
  .meta({ id: 'ExportFilters', description: 'The list filters, and only them: no limit, no cursor.' });

/** Export: `format` in the query; the list filters (only them: no limit, no cursor) in an optional JSON body. */
export function parseExportRequest(
  query: Record<string, unknown>,
  body: unknown,
): { ok: true; format: ExportFormat; filters: EventFilters } | { ok: false; errors: FieldError[] } {
  const q = exportQuerySchema.safeParse(query);
  // Only no body at all means "no filters": a JSON null is a body, and not an object.
  const b = exportBodySchema.safeParse(body === undefined ? {} : body);
  const errors = [
    ...(q.success ? [] : zodFieldErrors(q.error, '(query)')),
    ...(b.success ? [] : zodFieldErrors(b.error, '(body)')),
  ];
  if (!q.success || !b.success) return { ok: false, errors };
  return { ok: true, format: q.data.format, filters: givenFilters(b.data) };
}
