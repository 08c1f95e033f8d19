import { z } from 'zod';
import { formatTimestamp, type WebhookEndpointRecord } from '@audit/shared';

const time = z.string().meta({ description: 'UTC, millisecond precision, with a `+00:00` offset.' });

/** Spec "Webhook endpoint" as create and disable return it. */
export const webhookEndpointSchema = z
  .object({
    id: z
      .string()
      .regex(/^wh_[0-9a-f]{8}$/)
      .meta({ example: 'wh_3f9a0c12' }),
    url: z.string(),
    event_filter: z.array(z.string()),
    description: z.string(),
    active: z.boolean().meta({ description: '`true` while deliveries are dispatched; never re-enabled.' }),
    created_at: time,
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

const ms = (d: Date) => formatTimestamp(d.getTime());

export const webhookView = (r: WebhookEndpointRecord) => ({
  id: r.id,
  url: r.url,
  event_filter: r.event_filter,
  description: r.description,
  active: r.active,
  created_at: ms(r.created_at),
});

/** The end of a rotation's overlap while it runs (`now` by the gateway's clock), else null. */
const overlapEnd = (r: WebhookEndpointRecord, now: number) =>
  r.previous_secret_expires_at && r.previous_secret_expires_at.getTime() > now
    ? ms(r.previous_secret_expires_at)
    : null;

export const listedWebhookView = (r: WebhookEndpointRecord, now: number) => ({
  ...webhookView(r),
  consecutive_failures: r.consecutive_failures,
  last_delivery_at: r.last_delivery_at ? ms(r.last_delivery_at) : null,
  previous_secret_expires_at: overlapEnd(r, now),
});
