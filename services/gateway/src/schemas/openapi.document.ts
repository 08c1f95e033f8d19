import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import { exportBodySchema, exportQuerySchema, listQuerySchema } from '../domain/list-query.js';
import { createWebhookBodySchema } from '../domain/webhook-request.js';
import { json, operation } from './openapi.responses.js';
import { auditEventSchema, exportEnvelopeSchema, listResponseSchema } from './read-api.schema.js';
import { createdWebhookSchema, webhookEndpointSchema, webhookListSchema } from './webhooks.schema.js';

export const API_PREFIX = '/api/v2/public';

const webhookIdParam = z.object({
  id: z.string().meta({ description: 'The endpoint id, `wh_` and 8 hex.' }),
});

/** The public API's OpenAPI 3.1 document, generated from the zod schemas the routes validate with. */
export function openApiDocument() {
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Audit Trail Service public API',
        version: '2',
        description:
          "Read a tenant's audit trail (a paged list, single lookup and synchronous bulk export) and manage the webhook endpoints it is pushed to. Every request needs `Authorization: Bearer <API key>`; the security requirement of each operation names the scope it needs.",
      },
      servers: [{ url: API_PREFIX }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key issued by an operator.' },
        },
      },
      paths: {
        '/audit/events': {
          get: operation('audit:read', [403, 422], {
            operationId: 'listEvents',
            summary: 'List events, newest first (timestamp, then event_id, descending).',
            requestParams: { query: listQuerySchema },
            ok: {
              description: 'One page.',
              ...json(listResponseSchema),
            },
          }),
        },
        '/audit/events/{event_id}': {
          get: operation('audit:read', [403, 404, 422], {
            operationId: 'getEvent',
            summary: 'One event by id.',
            requestParams: {
              path: z.object({ event_id: z.string().meta({ description: 'The event id (a UUID).' }) }),
            },
            ok: { description: 'The event.', ...json(auditEventSchema) },
          }),
        },
        '/audit/export': {
          post: operation('audit:export', [400, 403, 413, 415, 422], {
            operationId: 'exportEvents',
            summary:
              "Up to 10,000 events in list order, streamed. On truncation, repeat with `until` set to the last event's timestamp.",
            requestParams: { query: exportQuerySchema },
            requestBody: { required: false, ...json(exportBodySchema) },
            ok: {
              description:
                'JSON: the envelope. NDJSON: one AuditEvent per line. The cut never splits a millisecond.',
              content: {
                'application/json': { schema: exportEnvelopeSchema },
                'application/x-ndjson': { schema: auditEventSchema },
              },
            },
            okHeaders: {
              'X-Service-Truncated': z.enum(['true', 'false']).meta({ description: 'The cap was reached.' }),
            },
          }),
        },
        '/audit/webhooks': {
          post: operation('webhooks:write', [400, 403, 409, 413, 415, 422], {
            operationId: 'createWebhook',
            summary: 'Register a webhook endpoint; its secret is returned only here.',
            requestBody: { required: true, ...json(createWebhookBodySchema) },
            okStatus: 201,
            ok: {
              description: 'The endpoint and its secret.',
              ...json(createdWebhookSchema),
            },
          }),
          get: operation('audit:read', [403, 422], {
            operationId: 'listWebhooks',
            summary: "The tenant's webhook endpoints, disabled ones included.",
            ok: {
              description: 'The endpoints.',
              ...json(webhookListSchema),
            },
          }),
        },
        '/audit/webhooks/{id}/disable': {
          post: operation('webhooks:write', [400, 403, 404, 413, 415, 422], {
            operationId: 'disableWebhook',
            summary: 'Disable an endpoint (idempotent); pending retries are dropped, history kept.',
            requestParams: { path: webhookIdParam },
            ok: {
              description: 'The endpoint, inactive.',
              ...json(webhookEndpointSchema),
            },
          }),
        },
        '/audit/webhooks/{id}': {
          delete: operation('webhooks:write', [403, 404, 422], {
            operationId: 'deleteWebhook',
            summary: 'Delete an endpoint and its delivery history.',
            requestParams: { path: webhookIdParam },
            okStatus: 204,
            ok: { description: 'Deleted.' },
          }),
        },
      },
    },
    {
      // The spec lets responses gain fields without a version change: clients must not reject unknown ones.
      override: ({ jsonSchema, io }) => {
        if (io === 'output' && jsonSchema.additionalProperties === false)
          delete jsonSchema.additionalProperties;
        // zod bounds every integer by the safe range; on the wire that only adds noise.
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      },
    },
  );
}
