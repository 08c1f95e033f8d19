import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { loggableError } from '../logger.js';
import type { ErrorBody } from './error-body.js';

// Fastify's own client errors, renamed into our vocabulary; any other 4xx keeps its status as `bad_request`.
const FASTIFY_CODES: Record<string, { status: number; error: string; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    error: 'payload_too_large',
    message: 'The request body is too large.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    error: 'unsupported_media_type',
    message: 'Unsupported Content-Type.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, error: 'malformed_body', message: 'The JSON body is empty.' },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    error: 'malformed_body',
    message: 'The body is not valid JSON.',
  },
};

/** The one error handler: every error becomes a JSON body; only our own bugs become a 5xx. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send({ error: 'not_found', message: `No route for ${request.method} ${request.url.split('?')[0]}.` });
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof AppError) {
      if (err.status >= 500)
        request.log.warn({ err: loggableError(err.cause ?? err) }, 'request failed on a dependency');
      const body: ErrorBody = { error: err.code, message: err.message, ...err.extra };
      if (err.details !== undefined) body.details = err.details;
      return reply.code(err.status).headers(err.headers).send(body);
    }
    const known = err.code ? FASTIFY_CODES[err.code] : undefined;
    if (known) return reply.code(known.status).send({ error: known.error, message: known.message });
    if (err instanceof SyntaxError || err.statusCode === 400) {
      return reply
        .code(400)
        .send({ error: 'malformed_body', message: 'The request body could not be parsed.' });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(err.statusCode).send({ error: 'bad_request', message: err.message });
    }
    request.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ error: 'internal_error', message: 'Internal error.' });
  });
}
