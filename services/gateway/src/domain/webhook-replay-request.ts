import { z } from 'zod';
import { zodFieldErrors, type FieldError } from '@audit/shared/platform';
import { FILTERS, checkWindow } from '@audit/shared/projection';
import { boundedWindow } from './bounded-window.js';

export const replayBodySchema = z
  .strictObject({
    since: FILTERS.since.body.meta({
      description: 'Inclusive: events ingested at or after this time (RFC 3339, from 1970 to 9999).',
      example: '2026-11-20T00:00:00.000Z',
    }),
    until: FILTERS.until.body.optional().meta({
      description: 'Exclusive: events ingested before this time; now when not given, and never later.',
      example: '2026-11-21T00:00:00.000Z',
    }),
  })
  .superRefine(checkWindow)
  .meta({
    id: 'WebhookReplayRequest',
    description:
      "The window of ingestion times whose events, those the endpoint's filters match, are sent again.",
  });

/**
 * The body of `POST /audit/webhooks/{id}/replay` (docs/webhooks.md "Replays"): every invalid, missing or unknown
 * field is reported (422); the window ends by `now` at the latest and spans at most `maxDays`.
 */
export function parseReplayRequest(
  body: unknown,
  opts: { now: number; maxDays: number },
): { ok: true; since: number; until: number } | { ok: false; errors: FieldError[] } {
  const parsed = replayBodySchema.safeParse(body ?? {}, {
    error: (issue) => (issue.input === undefined ? 'is required' : undefined),
  });
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const { since, until } = parsed.data;
  if (until !== undefined && until > opts.now) {
    return { ok: false, errors: [{ field: 'until', message: 'must not be later than now' }] };
  }
  return boundedWindow(since, until, opts);
}
