import { z } from 'zod';
import { formatTimestamp } from '@audit/shared/contract';
import { redactedUrl, type WebhookEndpointRecord } from '@audit/shared/webhooks';
import { MAX_RATE_LIMIT_PER_SECOND } from '../domain/webhook-request.js';

const time = z.string().meta({ description: 'UTC, millisecond precision, with a `+00:00` offset.' });

/** Spec "Webhook endpoint" as create, update, disable and rotation return it. */
export const webhookEndpointSchema = z
  .object({
    id: z
      .string()
      .regex(/^wh_[0-9a-f]{8}$/)
      .meta({ example: 'wh_3f9a0c12' }),
    url: z.string(),
    event_filter: z.array(z.string()),
    patient_filter: z.array(z.string()).meta({
      description: 'Patient ids: only events naming one of them are delivered; empty: every event.',
    }),
    description: z.string(),
    active: z.boolean().meta({ description: '`true` while deliveries are dispatched; never re-enabled.' }),
    created_at: time,
    rate_limit_per_second: z
      .int()
      .min(1)
      .max(MAX_RATE_LIMIT_PER_SECOND)
      .nullable()
      .meta({ description: 'At most this many delivery attempts a second; `null`: no limit.' }),
  })
  .meta({ id: 'WebhookEndpoint' });

export const listedWebhookEndpointSchema = webhookEndpointSchema
  .extend({
    consecutive_failures: z
      .int()
      .min(0)
      .meta({ description: 'Terminal delivery failures since the last success.' }),
    last_delivery_at: time
      .nullable()
      .meta({ description: 'Time of the last delivery attempt; `null` before the first.' }),
    previous_secret_expires_at: time.nullable().meta({
      description:
        'While a secret replaced by a rotation still signs deliveries beside the current one: when it stops; ' +
        'otherwise `null`.',
    }),
  })
  .meta({ id: 'ListedWebhookEndpoint' });

const secretFields = {
  secret: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .meta({ description: 'Shown only here. The HMAC key is these 64 characters as they are.' }),
  standard_webhooks_secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+\u002f]+={0,2}$/)
    .meta({
      description:
        'The same secret as the Standard Webhooks libraries take it (`whsec_` and the base64 of its key bytes), for ' +
        'verifying the `webhook-signature` header. Shown only here.',
    }),
};

export const createdWebhookSchema = z
  .object({ endpoint: webhookEndpointSchema, ...secretFields })
  .meta({ id: 'CreatedWebhook' });

export const rotatedWebhookSecretSchema = z
  .object({
    endpoint: webhookEndpointSchema,
    ...secretFields,
    previous_secret_expires_at: time.meta({
      description: 'Until then deliveries carry a signature by the previous secret as well as by this one.',
    }),
  })
  .meta({ id: 'RotatedWebhookSecret' });

export const webhookListSchema = z
  .object({ endpoints: z.array(listedWebhookEndpointSchema) })
  .meta({ id: 'WebhookList' });

/** What a test send did (docs/webhooks.md "Test deliveries"): the receiver's answer, or why there was none. */
export const webhookTestResultSchema = z
  .object({
    delivered: z.boolean().meta({ description: 'The receiver answered 2xx within the timeout.' }),
    status_code: z
      .int()
      .nullable()
      .meta({ description: "The receiver's status; `null` when none came back.", example: 204 }),
    latency_ms: z.int().min(0).meta({ description: 'From the start of the send to the last byte read.' }),
    error: z.string().nullable().meta({
      description:
        'Why it failed, as a delivery attempt says it (`status 500`, `timeout after 10000 ms`, `connection refused`); `null` when delivered.',
    }),
    id: z.string().meta({
      description: "The test payload's `id` (and `webhook-id` header): a fresh UUID for every send.",
    }),
  })
  .meta({ id: 'WebhookTestResult' });

const ms = (d: Date) => formatTimestamp(d.getTime());

export const webhookView = (r: WebhookEndpointRecord) => ({
  id: r.id,
  url: r.url,
  event_filter: r.event_filter,
  patient_filter: r.patient_filter,
  description: r.description,
  active: r.active,
  created_at: ms(r.created_at),
  rate_limit_per_second: r.rate_limit_per_second,
});

/** The end of a rotation's overlap while it runs (`now` by the gateway's clock), else null. */
const overlapEnd = (r: WebhookEndpointRecord, now: number) =>
  r.previous_secret_expires_at && r.previous_secret_expires_at.getTime() > now
    ? ms(r.previous_secret_expires_at)
    : null;

/** An endpoint as the list shows it; `redact`: to a key that may not change it (its URL without the query). */
export const listedWebhookView = (r: WebhookEndpointRecord, now: number, redact: boolean) => ({
  ...webhookView(r),
  ...(redact && { url: redactedUrl(r.url) }),
  consecutive_failures: r.consecutive_failures,
  last_delivery_at: r.last_delivery_at ? ms(r.last_delivery_at) : null,
  previous_secret_expires_at: overlapEnd(r, now),
});
