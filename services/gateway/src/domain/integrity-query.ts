import { z } from 'zod';
import { zodFieldErrors, type FieldError } from '@audit/shared/platform';
import { checkWindow, FILTERS } from '@audit/shared/projection';
import { cursorParam, DEFAULT_LIMIT, limitParam, repeatedParams } from './list-query.js';

// The largest tree size asked about: 2^52, far beyond any tenant, and below 2^53 so that every size is exact.
const MAX_SIZE = 2 ** 52;

/** A tree size as query text: a positive integer a tree can have (docs/integrity.md "Checkpoints"). */
const sizeParam = (description: string) =>
  z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, `must be an integer from 1 to ${MAX_SIZE}`)
    .transform(Number)
    .pipe(z.number().max(MAX_SIZE, `must be an integer from 1 to ${MAX_SIZE}`))
    .meta({
      description,
      override: { type: 'integer', minimum: 1, maximum: MAX_SIZE, pattern: undefined },
    });

// Each listed checkpoint carries its consistency proof from the one before, made from the stored subtrees: a
// page of 100 reads up to about 30,000 stored hashes on a tree of 10 million leaves, and so is kept to that.
export const MAX_CHECKPOINTS_PAGE = 100;

export const checkpointsQuerySchema = z.strictObject({
  limit: limitParam(MAX_CHECKPOINTS_PAGE, DEFAULT_LIMIT),
  cursor: cursorParam("The previous page's `next_cursor`, unmodified. Bound to the key's tenant."),
});

export const inclusionQuerySchema = z.strictObject({
  event_id: z
    .string()
    .max(1024)
    .meta({ description: "The event's id.", example: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90' }),
  tree_size: sizeParam("The size of one of the tenant's checkpoints; the latest when absent.").optional(),
});

export const consistencyQuerySchema = z
  .strictObject({
    from: sizeParam("The earlier checkpoint's size."),
    to: sizeParam("The later checkpoint's size."),
  })
  .refine((q) => q.from <= q.to, { path: ['from'], message: 'must not be larger than to' });

/** Leaves per page of a window proof: as many as one synchronous export's rows. */
export const MAX_WINDOW_LEAVES = 10_000;

export const windowQuerySchema = z
  .strictObject({
    since: FILTERS.since.query.optional(),
    until: FILTERS.until.query.optional(),
    tree_size: sizeParam("The size of one of the tenant's checkpoints; the latest when absent.").optional(),
    limit: limitParam(MAX_WINDOW_LEAVES, MAX_WINDOW_LEAVES),
    cursor: cursorParam(
      "The previous page's `next_cursor`, unmodified. Bound to the key's tenant, the window and the tree size.",
    ),
  })
  .superRefine(checkWindow);

/** A query string parsed by `schema`: unknown, repeated or invalid parameters are all reported (422). */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  query: Record<string, unknown>,
): { ok: true; query: z.output<S> } | { ok: false; errors: FieldError[] } {
  const repeated = repeatedParams(query);
  if (repeated.length > 0) return { ok: false, errors: repeated };
  const parsed = schema.safeParse(query);
  return parsed.success
    ? { ok: true, query: parsed.data }
    : { ok: false, errors: zodFieldErrors(parsed.error, '(query)') };
}
