import type { FastifyInstance } from 'fastify';
import {
  createHttpServer,
  registerErrorHandling,
  registerHealth,
  registerHttpMetrics,
  registerMetricsRoute,
  registerStartupGate,
  type Logger,
  type ReadinessCheck,
  type Registry,
  type StartupState,
} from '@audit/shared';
import { ingestMetrics } from './adapters/ingest.metrics.js';
import { BodyText } from './domain/request-body.js';
import { eventsRoute, type EventsRouteOptions } from './routes/events.route.js';

export interface IngestAppOptions extends Omit<EventsRouteOptions, 'meter'> {
  logger: Logger;
  metrics: Registry;
  maxBytes: number;
  readiness: Record<string, ReadinessCheck>;
  /** Until it is done, only the health endpoints and metrics answer (the service listens before Kafka is up). */
  startup: StartupState;
}

export async function buildApp(opts: IngestAppOptions): Promise<FastifyInstance> {
  const app = createHttpServer(opts.logger, { bodyLimit: opts.maxBytes });
  registerHttpMetrics(app, opts.metrics);
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
  registerErrorHandling(app);
  registerStartupGate(app, opts.startup);
  registerHealth(app, opts.readiness);
  // The internal listener: unauthenticated like the health endpoints.
  registerMetricsRoute(app, opts.metrics);
  await app.register(eventsRoute, { ...opts, meter: ingestMetrics(opts.metrics) });
  return app;
}
