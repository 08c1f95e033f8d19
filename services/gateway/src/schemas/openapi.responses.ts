import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { type Scope } from '@audit/shared/api-keys';
import { errorBodySchema, rateLimitedBodySchema, validationErrorBodySchema } from '@audit/shared/platform';

const retryAfter = z.int().min(1).meta({ description: 'Seconds to wait before retrying.' });
export const rateLimitHeaders = {
  'RateLimit-Limit': z.int().meta({ description: "The key's budget per minute for this request class." }),
  'RateLimit-Remaining': z.int().meta({ description: 'Requests left in the budget now.' }),
  'RateLimit-Reset': z.int().meta({ description: 'Seconds until the budget is full again.' }),
};

export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

const error = (
  id: string,
  description: string,
  schema: z.ZodType = errorBodySchema,
  headers: Record<string, z.ZodType> = {},
): ZodOpenApiResponseObject => ({ id, description, ...json(schema), headers: z.object(headers) });
export { error as errorResponse };

// Every response after authentication carries the rate-limit headers; a 401 has no key to count against.
const responses = {
  400: error('MalformedBody', 'The body is not valid JSON.', errorBodySchema, rateLimitHeaders),
  401: error(
    'Unauthorized',
    'One identical answer (`unauthorized`) for every cause: missing, malformed, unknown or revoked key or viewer token. Only the holder of an expired viewer token learns it (`token_expired`).',
    errorBodySchema,
    { 'WWW-Authenticate': z.enum(['Bearer', 'Bearer error="invalid_token"']) },
  ),
  403: error(
    'Forbidden',
    'The key lacks the scope the operation needs (the message names it), the webhook endpoint belongs to another tenant, or a narrowed viewer token asked for more than its filter.',
    errorBodySchema,
    rateLimitHeaders,
  ),
  404: error(
    'NotFound',
    'No such event or export job (missing, foreign and malformed ids alike), webhook endpoint or legal hold.',
    errorBodySchema,
    rateLimitHeaders,
  ),
  409: error(
    'LimitReached',
    'The tenant already has 100 webhook endpoints.',
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
    "Invalid, unknown or repeated parameters or fields, including what the schemas cannot say: a time before 1970, `since` not earlier than `until`, the `until` of a replay after now, a `source_ip` that is no IP address, a cursor not issued for this tenant and these filters (or this list), the window of an export job longer than the deployment allows, a webhook target refused by the target guard, a consistency proof `from` a larger size than its `to`, a retention policy's `max_days` below its `min_days`, a legal hold's `since` not earlier than its `until`, a hold's or a release's `reason` of spaces only or with a control character, a NUL character in text kept in Postgres (an export job's filters, a viewer token's narrowing, a hold's scope).",
    validationErrorBodySchema,
    rateLimitHeaders,
  ),
  // A throttled address is answered before its key takes a token: no bucket, so no rate-limit headers.
  429: error(
    'RateLimited',
    "The key's bucket is empty, the client's address failed to authenticate too often, this gateway runs as many exports as it may, or the tenant has as many export jobs queued or running as it may (`scope` says which).",
    rateLimitedBodySchema,
    {
      'Retry-After': retryAfter,
      ...Object.fromEntries(
        Object.entries(rateLimitHeaders).map(([name, schema]) => [name, schema.optional()]),
      ),
    },
  ),
  503: error('Unavailable', 'A component is unavailable; retry after the given delay.', errorBodySchema, {
    'Retry-After': retryAfter,
  }),
};

/** The error answers an operation may give besides 401, 429 and 503, which every one may. */
export type ErrorStatus = Exclude<keyof typeof responses, 401 | 429 | 503>;

/** An operation as a route describes it: its answers given by status, the common ones filled in. */
export type OperationDescription = Omit<ZodOpenApiOperationObject, 'responses' | 'security'> & {
  ok: Omit<ZodOpenApiResponseObject, 'headers'>;
  okStatus?: 200 | 201 | 202 | 204;
  /** Headers of the success answer besides the rate-limit ones, which every authenticated answer carries. */
  okHeaders?: Record<string, z.ZodType>;
  /** Answers of this operation alone (a partial download, a job not ready), by status. */
  more?: Record<number, ZodOpenApiResponseObject>;
};

export const operation = (
  scope: Scope,
  statuses: ErrorStatus[],
  op: OperationDescription,
): ZodOpenApiOperationObject => {
  const { ok, okStatus = 200, okHeaders = {}, more = {}, ...rest } = op;
  return {
    ...rest,
    security: [{ apiKey: [scope] }],
    responses: {
      [okStatus]: { ...ok, headers: z.object({ ...okHeaders, ...rateLimitHeaders }) },
      ...Object.fromEntries(([401, ...statuses, 429, 503] as const).map((s) => [s, responses[s]])),
      ...more,
    },
  };
};
