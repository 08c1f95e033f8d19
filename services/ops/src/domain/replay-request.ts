import { z } from 'zod';
import { parseRfc3339, TENANT_ID_PATTERN } from '@audit/shared/contract';
import { parseOptions, type Parsed } from './cli-options.js';

const instant = z.string().transform((text, ctx) => {
  const ms = parseRfc3339(text);
  if (ms === null)
    ctx.addIssue({ code: 'custom', message: 'must be an RFC 3339 time, e.g. 2026-11-22T08:00:00Z' });
  return ms ?? 0;
});

/** `replay webhooks` options: whose endpoint, which window of ingestion time. */
export const replayWebhooksSchema = z
  .object({
    tenant: z
      .string({ error: 'is required' })
      .regex(TENANT_ID_PATTERN, 'must be a tenant id: 1..64 of [A-Za-z0-9._-]'),
    endpoint: z
      .string({ error: 'is required' })
      .regex(/^wh_[0-9a-f]{8}$/, 'must be an endpoint id (wh_ and 8 hex digits)'),
    since: instant,
    until: instant.optional(),
    'dry-run': z.boolean().default(false),
  })
  .refine((r) => r.until === undefined || r.until > r.since, {
    message: 'must be after --since',
    path: ['until'],
  });

export type ReplayWebhooksRequest = z.output<typeof replayWebhooksSchema>;

/** A replay of what is still to come is refused: --since must not be later than now. */
function sinceNotLater<T extends { since?: number }>(parsed: Parsed<T>, now: number): Parsed<T> {
  if (parsed.ok && parsed.request.since !== undefined && parsed.request.since > now) {
    return { ok: false, errors: ['--since: is in the future'] };
  }
  return parsed;
}

export const parseReplayWebhooks = (values: Record<string, unknown>, now: number) =>
  sinceNotLater(parseOptions(replayWebhooksSchema, values), now);

/** `replay projection` options. */
export const replayProjectionSchema = z.object({
  since: instant.optional(),
  abort: z.boolean().default(false),
  'drop-old-after': z
    .string()
    .regex(/^\d{1,5}$/, 'must be a whole number of seconds')
    .transform((t) => Number(t) * 1000)
    // Gateways ask for the live generation once a second, and a page may take several queries.
    .pipe(z.number().min(5000, 'must be at least 5 seconds: reads may still be on the old generation'))
    .default(30_000),
});

export type ReplayProjectionRequest = z.output<typeof replayProjectionSchema>;

export const parseReplayProjection = (values: Record<string, unknown>, now: number) =>
  sinceNotLater(parseOptions(replayProjectionSchema, values), now);
