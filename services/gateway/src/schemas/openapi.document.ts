import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import { errorBodySchema, rateLimitedBodySchema, validationErrorBodySchema, type Scope } from '@audit/shared';
import { exportBodySchema, exportQuerySchema, listQuerySchema } from '../domain/list-query.js';
import { auditEventSchema, exportEnvelopeSchema, listResponseSchema } from './read-api.schema.js';

export const API_PREFIX = '/api/v2/public';

const retryAfter = z.int().min(1).meta({ description: 'Seconds to wait before retrying.' });
const rateLimitHeaders = {
  'RateLimit-Limit': z.int().meta({ description: "The key's budget per minute for this request class." }),
  'RateLimit-Remaining': z.int().meta({ description: 'Requests left in the budget now.' }),
  'RateLimit-Reset': z.int().meta({ description: 'Seconds until the budget is full again.' }),
};

const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

const error = (
  id: string,
  description: string,
  schema: z.ZodType = errorBodySchema,
  headers: Record<string, z.ZodType> = {},
): ZodOpenApiResponseObject => ({ id, description, ...json(schema), headers: z.object(headers) });

// Every response after authentication carries the rate-limit headers; a 401 has no key to count against.
const responses = {
  400: error('MalformedBody', 'The body is not valid JSON.', errorBodySchema, rateLimitHeaders),
  401: error(
    'Unauthorized',
    'One identical answer for every cause: missing, malformed, unknown or revoked key.',
    errorBodySchema,
    { 'WWW-Authenticate': z.literal('Bearer') },
  ),
  403: error(
    'Forbidden',
    'The key lacks the scope the operation needs; the message names it.',
    errorBodySchema,
    rateLimitHeaders,
  ),
  404: error(
    'NotFound',
    'No such event for this tenant (missing, foreign and malformed ids alike).',
    errorBodySchema,
    rateLimitHeaders,
  ),
  413: error('PayloadTooLarge', 'The body is too large.', errorBodySchema, rateLimitHeaders),
  415: error(
    'UnsupportedMediaType',
    'The body is not `application/json`.',
    errorBodySchema,
    rateLimitHeaders,
  ),
  422: error(
    'InvalidRequest',
    'Invalid, unknown or repeated parameters; a tampered, foreign or reused cursor.',
    validationErrorBodySchema,
    rateLimitHeaders,
  ),
  429: error('RateLimited', "The key's bucket is empty.", rateLimitedBodySchema, {
    'Retry-After': retryAfter,
    ...rateLimitHeaders,
  }),
  503: error('Unavailable', 'A component is unavailable; retry after the given delay.', errorBodySchema, {
    'Retry-After': retryAfter,
  }),
};

const operation = (
  scope: Scope,
  statuses: (keyof typeof responses)[],
  op: Omit<ZodOpenApiOperationObject, 'responses' | 'security'> & { ok: ZodOpenApiResponseObject },
): ZodOpenApiOperationObject => {
  const { ok, ...rest } = op;
  return {
    ...rest,
    security: [{ apiKey: [scope] }],
    responses: {
      200: ok,
      ...Object.fromEntries(([401, ...statuses, 429, 503] as const).map((s) => [s, responses[s]])),
    },
  };
};

/** The public API's OpenAPI 3.1 document, generated from the zod schemas the routes validate with. */
export function openApiDocument() {
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Audit Trail Service public API',
        version: '2',
        description:
          "Read a tenant's audit trail: a paged list, single lookup and synchronous bulk export. Every request needs `Authorization: Bearer <API key>`; the security requirement of each operation names the scope it needs.",
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
              headers: z.object(rateLimitHeaders),
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
            ok: { description: 'The event.', ...json(auditEventSchema), headers: z.object(rateLimitHeaders) },
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
              headers: z.object({
                'X-Service-Truncated': z
                  .enum(['true', 'false'])
                  .meta({ description: 'The cap was reached.' }),
                ...rateLimitHeaders,
              }),
            },
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
