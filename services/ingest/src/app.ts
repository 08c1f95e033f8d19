import type { FastifyInstance } from 'fastify';
import {
  createHttpServer,
  registerErrorHandling,
  registerHealth,
  registerHttpMetrics,
  registerJsonBodyParser,
  registerMetricsRoute,
  type Logger,
  type ReadinessCheck,
  type Registry,
} from '@audit/shared';
import { ingestMetrics } from './adapters/ingest.metrics.js';
import { eventsRoute, type EventsRouteOptions } from './routes/events.route.js';

export interface IngestAppOptions extends Omit<EventsRouteOptions, 'meter'> {
  logger: Logger;
  metrics: Registry;
  maxBytes: number;
  readiness: Record<string, ReadinessCheck>;
}

export async function buildApp(opts: IngestAppOptions): Promise<FastifyInstance> {
  const app = createHttpServer(opts.logger, { bodyLimit: opts.maxBytes });
  registerHttpMetrics(app, opts.metrics);
  // Only JSON and NDJSON are ingest formats: anything else is a 415, never guessed at.
  app.removeContentTypeParser('text/plain');
  registerJsonBodyParser(app);
  app.addContentTypeParser('application/x-ndjson', { parseAs: 'string' }, (_req, body, done) =>
    done(null, body),
  );
  registerErrorHandling(app);
  registerHealth(app, opts.readiness);
  // The internal listener: unauthenticated like the health endpoints.
  registerMetricsRoute(app, opts.metrics);
  await app.register(eventsRoute, { ...opts, meter: ingestMetrics(opts.metrics) });
  return app;
}
