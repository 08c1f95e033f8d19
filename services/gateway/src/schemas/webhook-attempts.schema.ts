import { z } from 'zod';
import { STORED_UUID_PATTERN, formatTimestamp } from '@audit/shared/contract';
import { type ListedAttempt } from '@audit/shared/webhooks';
import { ATTEMPT_OUTCOMES } from '../domain/webhook-attempts-query.js';
import { pageDescriptorSchema, timestampSchema } from './read-api.schema.js';

/** docs/webhooks.md "Delivery attempts": every attempt the API returns is parsed by this before it leaves. */
export const webhookAttemptSchema = z
  .object({
    event_id: z
      .string()
      .regex(STORED_UUID_PATTERN)
      .meta({ description: 'The event delivered.', example: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90' }),
    attempt: z
      .int()
      .min(1)
      .meta({ description: "1 for the event's first attempt, then one more per retry.", example: 2 }),
    attempted_at: timestampSchema.meta({
      description: 'When the request was made: UTC, millisecond precision, with a `+00:00` offset.',
      example: '2026-11-21T09:31:02.481+00:00',
    }),
    outcome: z.enum(ATTEMPT_OUTCOMES).meta({
      description: '`succeeded`: a 2xx within the timeout; anything else `failed`.',
      example: 'failed',
    }),
    terminal: z.boolean().meta({ description: 'The last attempt of a failed delivery: no retry follows.' }),
    status_code: z
      .int()
      .nullable()
      .meta({ description: "The receiver's HTTP status; `null` when none came back.", example: 503 }),
    error: z.string().nullable().meta({
      description:
        'What failed, in a few words built from codes (`status 503`, `timeout after 10000 ms`, `connection refused`); `null` on success.',
      example: 'status 503',
    }),
    latency_ms: z.int().min(0).meta({
      description: 'From the request to the last byte of the answer, or to the failure.',
      example: 87,
    }),
    next_attempt_at: timestampSchema.nullable().meta({
      description:
        'When the retry of this failed attempt is due; `null` after a success and after the last attempt.',
      example: '2026-11-21T09:36:04.112+00:00',
    }),
    replay: z.boolean().meta({
      description: "Made by a replay of a window (the owner's or an operator's), not by the schedule.",
    }),
  })
  .meta({ id: 'WebhookAttempt' });

export const webhookAttemptListSchema = z
  .object({
    attempts: z.array(webhookAttemptSchema).meta({ description: 'Newest first.' }),
    page: pageDescriptorSchema,
  })
  .meta({ id: 'WebhookAttemptList' });

const ms = (d: Date) => formatTimestamp(d.getTime());

export const webhookAttemptView = (a: ListedAttempt) => ({
  event_id: a.event_id,
  attempt: a.attempt,
  attempted_at: ms(a.attempted_at),
  outcome: a.succeeded ? ('succeeded' as const) : ('failed' as const),
  terminal: a.terminal,
  status_code: a.status_code,
  error: a.error,
  latency_ms: a.latency_ms,
  next_attempt_at: a.next_attempt_at ? ms(a.next_attempt_at) : null,
  replay: a.replay,
});
