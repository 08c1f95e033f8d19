import { collectDefaultMetrics, Registry } from 'prom-client';

// Services define their metrics through these, so prom-client stays one dependency of this package.
export { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's own registry, never prom-client's global one: tests build several apps in one process, and each
 * must count only its own requests. Every series carries the service's name.
 */
export function createMetrics(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
