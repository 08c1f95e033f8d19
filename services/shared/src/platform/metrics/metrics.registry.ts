import { collectDefaultMetrics, Registry } from 'prom-client';

// Services define their metrics through these, so prom-client stays one dependency of this package.
export { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Gauges among prom-client's defaults that are named like counters, which `promtool check metrics` refuses.
 * Each is the sum of a gauge that stays (`nodejs_active_handles` by `type`, and so on), so nothing is lost.
 */
const GAUGES_NAMED_AS_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * The process's own registry, never prom-client's global one: tests build several apps in one process, and each
 * must count only its own requests. Every series carries the service's name.
 */
export function createMetrics(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  for (const name of GAUGES_NAMED_AS_COUNTERS) registry.removeSingleMetric(name);
  return registry;
}
