import type { FastifyInstance } from 'fastify';
import {
  registerMetricsRoute,
  type Logger,
  createServiceApp,
  type ServiceAppOptions,
} from '@audit/shared/platform';
import { ingestMetrics } from './adapters/ingest.metrics.js';
import { BodyText } from './domain/request-body.js';
import { eventsRoute, type EventsRouteOptions } from './routes/events.route.js';

export interface IngestAppOptions extends Omit<EventsRouteOptions, 'meter'>, ServiceAppOptions {
  logger: Logger;
  maxBytes: number;
}

export async function buildApp(opts: IngestAppOptions): Promise<FastifyInstance> {
  const app = createServiceApp(opts.logger, { ...opts, bodyLimit: opts.maxBytes });
  // Only JSON and NDJSON are ingest formats: anything else is a 415, never guessed at.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  // Handed on as text: the route parses it in the format the Content-Type names and checks its numbers.
  for (const [type, format] of [
    ['application/json', 'json'],
    ['application/x-ndjson', 'ndjson'],
  ] as const) {
    app.addContentTypeParser(type, { parseAs: 'string' }, (_req, body, done) =>
      done(null, new BodyText(format, body as string)),
    );
  }
  // The internal listener: unauthenticated like the health endpoints.
  registerMetricsRoute(app, opts.metrics);
  await app.register(eventsRoute, { ...opts, meter: ingestMetrics(opts.metrics) });
  return app;
}
