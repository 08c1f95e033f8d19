import type { FastifyInstance } from 'fastify';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { validateBatch, type Clock } from '@audit/shared/contract';
import {
  MalformedBodyError,
  PayloadTooLargeError,
  UnauthorizedError,
  ValidationError,
  bearerMatches,
  publishWithin,
} from '@audit/shared/platform';
import { readBody, type ParsedBody } from '../domain/request-body.js';

/** A whole batch shares one outcome: only a fully valid batch is published, and it is published whole. */
export type IngestOutcome = 'accepted' | 'rejected' | 'unavailable';

/** What the events are counted by (metrics). */
export interface IngestMeter {
  events(outcome: IngestOutcome, count: number): void;
}

export interface EventsRouteOptions {
  token: string;
  publisher: Pick<AuditPublisher, 'publishRecords'>;
  publishTimeoutMs: number;
  clock: Clock;
  meter: IngestMeter;
}

function rejectBody(parsed: Exclude<ParsedBody, { ok: true }>): never {
  if (parsed.kind === 'too_many') throw new PayloadTooLargeError(parsed.message);
  if (parsed.kind === 'malformed') throw new MalformedBodyError(parsed.message, parsed.details);
  throw new ValidationError(parsed.message, [{ field: '(body)', message: parsed.message }]);
}

export async function eventsRoute(app: FastifyInstance, opts: EventsRouteOptions) {
  app.addHook('onRequest', async (request) => {
    if (!bearerMatches(request.headers.authorization, opts.token)) throw new UnauthorizedError();
  });

  app.post('/internal/v1/events', async (request, reply) => {
    const parsed = readBody(request.body);
    if (!parsed.ok) rejectBody(parsed);
    const batch = validateBatch(parsed.items, { clock: opts.clock, refuseReserved: true });
    const errors = batch.ok ? parsed.inexact() : batch.errors;
    if (!batch.ok || errors.length > 0) {
      opts.meter.events('rejected', parsed.items.length);
      throw new ValidationError('One or more events are invalid; nothing was published.', errors);
    }
    // From here on only Kafka can fail: every failure is a 503 the client may retry with the same event ids.
    await publishWithin(opts.publisher.publishRecords(batch.records), opts.publishTimeoutMs).catch(
      (err: unknown) => {
        opts.meter.events('unavailable', batch.records.length);
        throw err;
      },
    );
    opts.meter.events('accepted', batch.records.length);
    return reply
      .code(202)
      .send({ accepted: batch.records.length, event_ids: batch.records.map((r) => r.event_id) });
  });
}
