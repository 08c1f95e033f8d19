import { z } from 'zod';
import { RATE_LIMIT_SCOPES } from '../errors.js';

/**
 * The body of every error response (docs/contract.md "Status codes and error bodies"); the ids name the
 * OpenAPI components.
 */
export const errorBodySchema = z
  .object({
    error: z.string().meta({ description: 'Stable machine-readable code, e.g. `not_found`.' }),
    message: z.string().meta({ description: 'Human-readable explanation; never contains a key or secret.' }),
  })
  .meta({ id: 'Error' });

export const fieldErrorSchema = z
  .object({
    field: z.string().meta({ description: 'The offending parameter or body field, e.g. `limit`.' }),
    message: z.string(),
  })
  .meta({ id: 'FieldError' });

export const validationErrorBodySchema = errorBodySchema
  .extend({ details: z.array(fieldErrorSchema).min(1) })
  .meta({ id: 'ValidationError', description: 'Names every invalid, unknown or repeated field at once.' });

export const rateLimitedBodySchema = errorBodySchema
  .extend({
    scope: z.enum(RATE_LIMIT_SCOPES).meta({
      description:
        "What is exhausted: the key's read or write bucket, the client address's failed authentications, the exports one gateway process runs at once, the tenant's export jobs queued or running, the tenant's webhook replays queued or running, or the downloads running for the key, its tenant or the gateway process.",
    }),
    retry_after_s: z
      .int()
      .min(1)
      .meta({ description: 'Seconds until a request can succeed; as `Retry-After`.' }),
  })
  .meta({ id: 'RateLimited' });

export type ErrorBody = z.infer<typeof errorBodySchema> & { details?: unknown; [field: string]: unknown };
