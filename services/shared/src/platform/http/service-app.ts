import type { FastifyInstance } from 'fastify';
import type { Logger } from '../logger.js';
import { registerHttpMetrics } from '../metrics/http-metrics.plugin.js';
import type { Registry } from '../metrics/metrics.registry.js';
import type { StartupState } from '../startup.js';
import { registerErrorHandling } from './error-handler.js';
import { registerHealth, type ReadinessCheck } from './health.plugin.js';
import { createHttpServer } from './server.js';
import { registerStartupGate } from './startup-gate.js';

export interface ServiceAppOptions {
  metrics: Registry;
  /** Until it is done, only the health endpoints and metrics answer (registerStartupGate). */
  startup: StartupState;
  readiness: Record<string, ReadinessCheck>;
  bodyLimit?: number;
}

/**
 * A service's HTTP app as every listener with health endpoints has it: its requests measured, errors in our JSON
 * shape, `/healthz` and `/readyz`, and nothing else answered before the start-up finished.
 */
export function createServiceApp(logger: Logger, opts: ServiceAppOptions): FastifyInstance {
  const app = createHttpServer(logger, opts.bodyLimit === undefined ? {} : { bodyLimit: opts.bodyLimit });
  registerHttpMetrics(app, opts.metrics);
  registerErrorHandling(app);
  registerStartupGate(app, opts.startup);
  registerHealth(app, opts.readiness);
  return app;
}
