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

// Links say where an answer's ids lead (clients and stateful fuzzers follow them); each names a field of the
// answer's schema, which the unit tests check.
const link = (operationId: string, parameter: string, pointer: string, description: string) => ({
  operationId,
  parameters: { [parameter]: `$response.body#${pointer}` },
  description,
});
const eventLinks = (events: string) => ({
  GetFirstEvent: link('getEvent', 'event_id', `${events}/0/event_id`, 'The first event of the answer.'),
});
const webhookLinks = (endpoint: string) => ({
  DisableWebhook: link('disableWebhook', 'id', `${endpoint}/id`, 'Disable this endpoint.'),
  DeleteWebhook: link('deleteWebhook', 'id', `${endpoint}/id`, 'Delete this endpoint.'),
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
      tags: [
        { name: 'Events', description: "The tenant's audit trail: list, lookup and export." },
        { name: 'Webhooks', description: 'The endpoints the audit trail is pushed to, signed.' },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key issued by an operator.' },
        },
      },
      paths: {
        '/audit/events': {
          get: operation('audit:read', [403, 422], {
            operationId: 'listEvents',
            tags: ['Events'],
            summary: 'List events, newest first (timestamp, then event_id, descending).',
            description:
              "A page of the tenant's events matching every filter given. Page with `cursor` (the previous page's `next_cursor`, with the same filters) until `has_more` is false.",
            requestParams: { query: listQuerySchema },
            ok: {
              description: 'One page.',
              ...json(listResponseSchema),
              links: eventLinks('/events'),
            },
          }),
        },
        '/audit/events/{event_id}': {
          get: operation('audit:read', [403, 404, 422], {
            operationId: 'getEvent',
            tags: ['Events'],
            summary: 'One event by id.',
            description:
              "One of the tenant's events. An id that does not exist, belongs to another tenant or is no UUID at all is the same 404.",
            requestParams: {
              path: z.object({ event_id: z.string().meta({ description: 'The event id (a UUID).' }) }),
            },
            ok: { description: 'The event.', ...json(auditEventSchema) },
          }),
        },
        '/audit/export': {
          post: operation('audit:export', [400, 403, 413, 415, 422], {
            operationId: 'exportEvents',
            tags: ['Events'],
            summary: 'Up to 10,000 events in list order, streamed.',
            description:
              "The events matching the list's filters, given in the body. On truncation, repeat with `until` set to the last event's timestamp. Every export answered 200 is itself recorded as an `audit.export` event.",
            requestParams: { query: exportQuerySchema },
            requestBody: { required: false, ...json(exportBodySchema) },
            ok: {
              description:
                'JSON: the envelope. NDJSON: one AuditEvent per line. The cut never splits a millisecond.',
              content: {
                'application/json': { schema: exportEnvelopeSchema },
                'application/x-ndjson': { schema: auditEventSchema },
              },
              links: eventLinks('/events'),
            },
            okHeaders: {
              'X-Service-Truncated': z.enum(['true', 'false']).meta({ description: 'The cap was reached.' }),
            },
          }),
        },
        '/audit/webhooks': {
          post: operation('webhooks:write', [400, 403, 409, 413, 415, 422], {
            operationId: 'createWebhook',
            tags: ['Webhooks'],
            summary: 'Register a webhook endpoint; its secret is returned only here.',
            description:
              'Matching events are pushed to the URL, signed with the secret. The host must resolve to public addresses only (docs/webhooks.md, "Target guard"); at most 100 endpoints per tenant.',
            requestBody: { required: true, ...json(createWebhookBodySchema) },
            okStatus: 201,
            ok: {
              description: 'The endpoint and its secret.',
              ...json(createdWebhookSchema),
              links: webhookLinks('/endpoint'),
            },
          }),
          get: operation('audit:read', [403, 422], {
            operationId: 'listWebhooks',
            tags: ['Webhooks'],
            summary: "The tenant's webhook endpoints, disabled ones included.",
            description: 'Oldest first, with the delivery state of each.',
            ok: {
              description: 'The endpoints.',
              ...json(webhookListSchema),
              links: webhookLinks('/endpoints/0'),
            },
          }),
        },
        '/audit/webhooks/{id}/disable': {
          post: operation('webhooks:write', [400, 403, 404, 413, 415, 422], {
            operationId: 'disableWebhook',
            tags: ['Webhooks'],
            summary: 'Disable an endpoint (idempotent).',
            description:
              'No more deliveries: pending retries are dropped, the delivery history is kept. An endpoint is never enabled again.',
            requestParams: { path: webhookIdParam },
            ok: {
              description: 'The endpoint, inactive.',
              ...json(webhookEndpointSchema),
              links: { DeleteWebhook: webhookLinks('').DeleteWebhook },
            },
          }),
        },
        '/audit/webhooks/{id}': {
          delete: operation('webhooks:write', [403, 404, 422], {
            operationId: 'deleteWebhook',
            tags: ['Webhooks'],
            summary: 'Delete an endpoint and its delivery history.',
            description: 'The endpoint no longer counts against the limit of 100.',
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
