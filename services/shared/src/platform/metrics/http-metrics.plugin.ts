import type { FastifyInstance } from 'fastify';
import { Histogram, type Registry } from 'prom-client';

/** The route label of requests no route matched. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Request durations by method, route pattern and status. The pattern, never the URL: URLs carry event ids and
 * query text, which would make a series per request and put tenant data into the metrics. Requests Fastify
 * refuses before routing (an undecodable URL) never reach the hooks and are not counted.
 */
export function registerHttpMetrics(app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration, from arrival to the last byte of the response',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    duration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? UNMATCHED_ROUTE,
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}

/**
 * `GET /metrics` in the Prometheus text format. Unauthenticated like the health endpoints: it belongs on an
 * internal listener only, never on a port the public reaches.
 */
export function registerMetricsRoute(app: FastifyInstance, registry: Registry): void {
  // Scraped every few seconds; request logs of it would drown everything else.
  app.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });
}
