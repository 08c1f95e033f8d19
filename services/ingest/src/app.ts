import type { FastifyInstance } from 'fastify';
import {
  createHttpServer,
  registerErrorHandling,
  registerHealth,
  registerJsonBodyParser,
  type Logger,
  type ReadinessCheck,
} from '@audit/shared';
import { eventsRoute, type EventsRouteOptions } from './routes/events.route.js';

export interface IngestAppOptions extends EventsRouteOptions {
  logger: Logger;
  maxBytes: number;
  readiness: Record<string, ReadinessCheck>;
}

export async function buildApp(opts: IngestAppOptions): Promise<FastifyInstance> {
  const app = createHttpServer(opts.logger, { bodyLimit: opts.maxBytes });
  // Only JSON and NDJSON are ingest formats: anything else is a 415, never guessed at.
  app.removeContentTypeParser('text/plain');
  registerJsonBodyParser(app);
  app.addContentTypeParser('application/x-ndjson', { parseAs: 'string' }, (_req, body, done) =>
    done(null, body),
  );
  registerErrorHandling(app);
  registerHealth(app, opts.readiness);
  await app.register(eventsRoute, opts);
  return app;
}
