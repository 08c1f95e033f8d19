import type { FastifyInstance } from 'fastify';
import {
  DependencyUnavailableError,
  PayloadTooLargeError,
  UnauthorizedError,
  ValidationError,
  bearerMatches,
  withDeadline,
  type AuditPublisher,
} from '@audit/shared';
import { checkItems, parseNdjson, type ParsedBody } from '../domain/request-body.js';
import { MalformedBodyError } from '../domain/malformed-body.error.js';

export interface EventsRouteOptions {
  token: string;
  publisher: Pick<AuditPublisher, 'publish'>;
  publishTimeoutMs: number;
}

function rejectBody(parsed: Exclude<ParsedBody, { ok: true }>): never {
  if (parsed.kind === 'too_many') throw new PayloadTooLargeError(parsed.message);
  if (parsed.kind === 'malformed') throw new MalformedBodyError(parsed.message, parsed.details);
  throw new ValidationError(parsed.message, []);
}

export async function eventsRoute(app: FastifyInstance, opts: EventsRouteOptions) {
  app.addHook('onRequest', async (request) => {
    if (!bearerMatches(request.headers.authorization, opts.token)) throw new UnauthorizedError();
  });

  app.post('/internal/v1/events', async (request, reply) => {
    const parsed = typeof request.body === 'string' ? parseNdjson(request.body) : checkItems(request.body);
    if (!parsed.ok) rejectBody(parsed);
    const eventIds = await withDeadline(
      opts.publisher.publish(parsed.items),
      opts.publishTimeoutMs,
      () => new DependencyUnavailableError('kafka'),
    ).catch((err: unknown) => {
      if (err instanceof ValidationError || err instanceof DependencyUnavailableError) throw err;
      throw new DependencyUnavailableError('kafka', 5, { cause: err });
    });
    return reply.code(202).send({ accepted: eventIds.length, event_ids: eventIds });
  });
}
