import { z } from 'zod';
import { UUID_PATTERN } from '@audit/shared/contract';
import { zodFieldErrors, type FieldError } from '@audit/shared/platform';
import { FILTERS, checkWindow } from '@audit/shared/projection';
import { type AttemptFilters } from '@audit/shared/webhooks';
import { DEFAULT_LIMIT, MAX_LIMIT, cursorParam, limitParam, repeatedParams } from './list-query.js';

export const ATTEMPT_OUTCOMES = ['succeeded', 'failed'] as const;

// UUID_PATTERN ignores case with a flag, which a pattern in the OpenAPI document cannot carry: spelled out there.
const ANY_CASE_UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const webhookAttemptsQuerySchema = z
  .strictObject({
    event_id: z
      .string()
      .regex(UUID_PATTERN, 'must be a UUID: 8-4-4-4-12 hex digits')
      .transform((id) => id.toLowerCase())
      .optional()
      .meta({
        description: "Only this event's attempts (the event id, in either case).",
        example: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90',
        override: { pattern: ANY_CASE_UUID },
      }),
    outcome: z
      .enum(ATTEMPT_OUTCOMES, { message: 'must be succeeded or failed' })
      .optional()
      .meta({ description: 'Only successful, or only failed, attempts.', example: 'failed' }),
    // The list's time filters, over the attempt's time: the same spelling, the same refusals.
    since: FILTERS.since.query.optional(),
    until: FILTERS.until.query.optional(),
    limit: limitParam(MAX_LIMIT, DEFAULT_LIMIT),
    cursor: cursorParam(
      "The previous page's `next_cursor`, unmodified. Bound to the key's tenant, the endpoint and the filters.",
    ),
  })
  .superRefine(checkWindow);

export interface WebhookAttemptsQuery {
  filters: AttemptFilters;
  limit: number;
  cursor?: string;
}

/** Query string of an endpoint's attempts: unknown, repeated or invalid parameters are all reported (422). */
export function parseWebhookAttemptsQuery(
  query: Record<string, unknown>,
): { ok: true; query: WebhookAttemptsQuery } | { ok: false; errors: FieldError[] } {
  const repeated = repeatedParams(query);
  if (repeated.length > 0) return { ok: false, errors: repeated };
  const parsed = webhookAttemptsQuerySchema.safeParse(query);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error, '(query)') };
  const { event_id, outcome, since, until, limit = DEFAULT_LIMIT, cursor } = parsed.data;
  const filters: AttemptFilters = {
    ...(event_id === undefined ? {} : { eventId: event_id }),
    ...(outcome === undefined ? {} : { succeeded: outcome === 'succeeded' }),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
  };
  return { ok: true, query: { filters, limit, ...(cursor ? { cursor } : {}) } };
}
