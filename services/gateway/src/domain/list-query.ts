import { z } from 'zod';
import { ACTION_PATTERN, parseRfc3339, zodFieldErrors, type FieldError } from '@audit/shared';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** The filters of list and export (spec: same shape and meaning); times as epoch ms, `until` exclusive. */
export interface EventFilters {
  action?: string;
  resource_type?: string;
  phi_involved?: boolean;
  since?: number;
  until?: number;
}

const time = z
  .string()
  .meta({ format: 'date-time', example: '2026-11-21T09:30:00.000Z' })
  .transform(
    (text, ctx) =>
      parseRfc3339(text) ??
      (ctx.addIssue({ code: 'custom', message: 'must be an RFC 3339 date-time with Z or a numeric offset' }),
      z.NEVER),
  );

export const filterFields = {
  action: z
    .string()
    .max(100)
    .regex(ACTION_PATTERN, 'must be a dotted lowercase slug such as phi.read')
    .optional()
    .meta({ description: 'Only events with this action.', example: 'phi.read' }),
  resource_type: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .meta({ description: 'Only events on this resource type.' }),
  since: time.optional().meta({ description: 'Inclusive lower bound (RFC 3339).' }),
  until: time.optional().meta({ description: 'Exclusive upper bound (RFC 3339).' }),
};

const PHI_FILTER = '`true`: PHI events only; `false`: non-PHI only; omitted: both.';

export const listQuerySchema = z
  .strictObject({
    ...filterFields,
    phi_involved: z
      .enum(['true', 'false'], { message: 'must be true or false' })
      .transform((v) => v === 'true')
      .optional()
      .meta({ description: PHI_FILTER }),
    limit: z
      .string()
      .regex(/^\d{1,7}$/, `must be an integer from 1 to ${MAX_LIMIT}`)
      .transform(Number)
      .pipe(
        z.number().min(1, `must be from 1 to ${MAX_LIMIT}`).max(MAX_LIMIT, `must be from 1 to ${MAX_LIMIT}`),
      )
      .optional()
      .meta({
        description: 'Page size.',
        // A query parameter is text; what it must spell is an integer in range.
        override: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_LIMIT,
          default: DEFAULT_LIMIT,
          pattern: undefined,
        },
      }),
    cursor: z.string().min(1).max(1024).optional().meta({
      description:
        "The previous page's `next_cursor`, unmodified. Bound to the key's tenant and the filters.",
    }),
  })
  .superRefine((q, ctx) => {
    if (q.since !== undefined && q.until !== undefined && q.since >= q.until) {
      ctx.addIssue({ code: 'custom', path: ['since'], message: 'must be earlier than until' });
    }
  });

export interface ListQuery {
  filters: EventFilters;
  limit: number;
  cursor?: string;
}

/** Query string of the list: unknown, repeated or invalid parameters are all reported (422), never ignored. */
export function parseListQuery(
  query: Record<string, unknown>,
): { ok: true; query: ListQuery } | { ok: false; errors: FieldError[] } {
  const repeated = Object.entries(query).filter(([, v]) => Array.isArray(v));
  if (repeated.length > 0) {
    return { ok: false, errors: repeated.map(([field]) => ({ field, message: 'must be given once' })) };
  }
  const parsed = listQuerySchema.safeParse(query);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error, '(query)') };
  const { limit, cursor, ...filters } = parsed.data;
  const defined = Object.fromEntries(
    Object.entries(filters).filter(([, v]) => v !== undefined),
  ) as EventFilters;
  return {
    ok: true,
    query: { filters: defined, limit: limit ?? DEFAULT_LIMIT, ...(cursor ? { cursor } : {}) },
  };
}

export const EXPORT_FORMATS = ['json', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const exportQuerySchema = z.strictObject({
  format: z
    .enum(EXPORT_FORMATS, { message: 'must be json or ndjson' })
    .default('json')
    .meta({ description: '`json`: the envelope; `ndjson`: one audit event per line.' }),
});

export const exportBodySchema = z
  .strictObject({
    ...filterFields,
    phi_involved: z
      .boolean({ message: 'must be true or false' })
      .optional()
      .meta({ description: PHI_FILTER }),
  })
  .superRefine((b, ctx) => {
    if (b.since !== undefined && b.until !== undefined && b.since >= b.until) {
      ctx.addIssue({ code: 'custom', path: ['since'], message: 'must be earlier than until' });
    }
  })
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
  const filters = Object.fromEntries(
    Object.entries(b.data).filter(([, v]) => v !== undefined),
  ) as EventFilters;
  return { ok: true, format: q.data.format, filters };
}
