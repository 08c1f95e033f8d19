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
  })
  .meta({ id: 'ListedWebhookEndpoint' });

export const createdWebhookSchema = z
  .object({
    endpoint: webhookEndpointSchema,
    secret: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({ description: 'Shown only here. The HMAC key is these 64 characters as they are.' }),
  })
  .meta({ id: 'CreatedWebhook' });

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

export const listedWebhookView = (r: WebhookEndpointRecord) => ({
  ...webhookView(r),
  consecutive_failures: r.consecutive_failures,
  last_delivery_at: r.last_delivery_at ? ms(r.last_delivery_at) : null,
});
