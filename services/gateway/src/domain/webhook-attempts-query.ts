import { z } from 'zod';
import { UUID_PATTERN } from '@audit/shared/contract';
import { FILTERS, checkWindow } from '@audit/shared/projection';
import { type AttemptFilters } from '@audit/shared/webhooks';
import { DEFAULT_LIMIT, MAX_LIMIT, cursorParam, limitParam, parsePagedQuery } from './list-query.js';

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

/** Query string of an endpoint's attempts. */
export const parseWebhookAttemptsQuery = (query: Record<string, unknown>) =>
  parsePagedQuery(
    webhookAttemptsQuerySchema,
    query,
    ({ event_id, outcome, since, until }): AttemptFilters => ({
      ...(event_id === undefined ? {} : { eventId: event_id }),
      ...(outcome === undefined ? {} : { succeeded: outcome === 'succeeded' }),
      ...(since === undefined ? {} : { since }),
      ...(until === undefined ? {} : { until }),
    }),
  );
