import { z } from 'zod';
import { zodFieldErrors, type FieldError } from '@audit/shared/platform';
import { HOLD_STATUSES, type HoldStatus } from '@audit/shared/retention';
import { cursorParam, limitParam, repeatedParams } from './list-query.js';

export const DEFAULT_HOLDS_LIMIT = 50;
export const MAX_HOLDS_LIMIT = 100;

/** Hold ids are UUIDs; either case names the same hold. Spelled out: the OpenAPI document carries no regex flag. */
export const holdIdSchema = z
  .string()
  .regex(
    /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
    'must be a UUID: 8-4-4-4-12 hex digits',
  )
  .meta({ description: "The hold's id, a UUID.", example: '5f0c6e2a-8d4b-4c1e-9a7f-3b2d1e0c9f84' });

export const holdIdParam = z.object({ hold_id: holdIdSchema });

/** The hold a path names, lowercase as stored, or the fields that are wrong with it. */
export function parseHoldId(params: unknown): { ok: true; id: string } | { ok: false; errors: FieldError[] } {
  const parsed = holdIdParam.safeParse(params);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error, '(path)') };
  return { ok: true, id: parsed.data.hold_id.toLowerCase() };
}

export const legalHoldsQuerySchema = z.strictObject({
  status: z
    .enum(HOLD_STATUSES, { message: 'must be active, released or all' })
    .default('active')
    .meta({ description: '`active`: the holds in force; `released`: those ended; `all`: both.' }),
  limit: limitParam(MAX_HOLDS_LIMIT, DEFAULT_HOLDS_LIMIT),
  cursor: cursorParam(
    "The previous page's `next_cursor`, unmodified. Bound to the key's tenant and the status.",
  ),
});

export interface LegalHoldsQuery {
  status: HoldStatus;
  limit: number;
  cursor?: string;
}

/** Query string of the holds' list: unknown, repeated or invalid parameters are all reported (422). */
export function parseLegalHoldsQuery(
  query: Record<string, unknown>,
): { ok: true; query: LegalHoldsQuery } | { ok: false; errors: FieldError[] } {
  const repeated = repeatedParams(query);
  if (repeated.length > 0) return { ok: false, errors: repeated };
  const parsed = legalHoldsQuerySchema.safeParse(query);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error, '(query)') };
  const { status, limit = DEFAULT_HOLDS_LIMIT, cursor } = parsed.data;
  return { ok: true, query: { status, limit, ...(cursor ? { cursor } : {}) } };
}
