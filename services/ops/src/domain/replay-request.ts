import { z } from 'zod';
import { parseRfc3339, TENANT_ID_PATTERN } from '@audit/shared';
import type { Parsed } from './dlq-request.js';

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

export function parseReplayWebhooks(
  values: Record<string, unknown>,
  now: number,
): Parsed<ReplayWebhooksRequest> {
  const result = replayWebhooksSchema.safeParse(values);
  if (!result.success) {
    return { ok: false, errors: result.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`) };
  }
  if (result.data.since > now) return { ok: false, errors: ['--since: is in the future'] };
  return { ok: true, request: result.data };
}

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

export function parseReplayProjection(
  values: Record<string, unknown>,
  now: number,
): Parsed<ReplayProjectionRequest> {
  const result = replayProjectionSchema.safeParse(values);
  if (!result.success) {
    return { ok: false, errors: result.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`) };
  }
  if (result.data.since !== undefined && result.data.since > now)
    return { ok: false, errors: ['--since: is in the future'] };
  return { ok: true, request: result.data };
}
