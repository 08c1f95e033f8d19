import { WEBHOOK_RETRY_TIERS } from '@audit/shared/contract';
import {
  Counter,
  Gauge,
  Histogram,
  type LagSource,
  type PartitionLag,
  type Registry,
} from '@audit/shared/platform';
import type { DeliveryMeter, Outcome } from './deliverer.js';
import type { DeliveryOutcomeMeter } from './start-delivery.js';

const OUTCOMES: readonly (Outcome | 'deferred')[] = ['delivered', 'retry', 'terminal', 'dropped', 'deferred'];
const TIERS = Array.from({ length: WEBHOOK_RETRY_TIERS + 1 }, (_, tier) => String(tier));

/** The retry tier an attempt is made from: 0 for the first attempt, n for retry n. Bounded whatever a header said. */
export const tierOf = (attempt: number) => TIERS[Math.min(Math.max(attempt - 1, 0), WEBHOOK_RETRY_TIERS)]!;

/** Records waiting in each retry tier: the retry group's lag summed over the tier topic's partitions. */
export function retryTierDepth(
  rows: readonly PartitionLag[],
  retriesGroup: string,
  retryTopics: readonly string[],
): Map<string, number> {
  const depth = new Map(retryTopics.map((_, i) => [String(i + 1), 0]));
  for (const row of rows) {
    const tier = retryTopics.indexOf(row.topic);
    if (row.group === retriesGroup && tier >= 0)
      depth.set(String(tier + 1), depth.get(String(tier + 1))! + row.lag);
  }
  return depth;
}

export interface DispatcherMetricsOptions {
  /** The consumer lag of the dispatcher's groups (consumerLagSource), shared with kafka_consumer_lag. */
  lag: LagSource;
  retriesGroup: string;
  retryTopics: readonly string[];
}

export function dispatcherMetrics(
  registry: Registry,
  opts: DispatcherMetricsOptions,
): DeliveryMeter & DeliveryOutcomeMeter {
  const deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Delivery jobs by how they ended and the retry tier they ran from (0: first attempt)',
    labelNames: ['outcome', 'tier'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: "One request to an endpoint, from resolving its host to the response's last byte",
    labelNames: ['result'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const autoDisables = new Counter({
    name: 'webhook_auto_disables_total',
    help: 'Endpoints made inactive after consecutive terminal failures',
    registers: [registry],
  });
  const deadLetters = new Counter({
    name: 'webhook_dead_letters_total',
    help: 'Deliveries whose last attempt failed, published to the dead-letter topic',
    registers: [registry],
  });
  new Gauge({
    name: 'webhook_retry_tier_depth',
    help: 'Delivery jobs waiting in a retry tier (the retry consumer group lag on its topic)',
    labelNames: ['tier'],
    registers: [registry],
    async collect() {
      const rows = await opts.lag();
      this.reset();
      // Without an answer from Kafka the series are left out: a zero would claim the tiers are empty.
      if (rows === null) return;
      for (const [tier, depth] of retryTierDepth(rows, opts.retriesGroup, opts.retryTopics)) {
        this.set({ tier }, depth);
      }
    },
  });
  // Every series exists from the start: a rate over a series that appears with its first increment misses it.
  for (const outcome of OUTCOMES) for (const tier of TIERS) deliveries.inc({ outcome, tier }, 0);
  for (const result of ['success', 'failure']) duration.zero({ result });
  autoDisables.inc(0);
  deadLetters.inc(0);
  return {
    settled: (outcome, attempt) => deliveries.inc({ outcome, tier: tierOf(attempt) }),
    attempted: (result) =>
      duration.observe({ result: result.ok ? 'success' : 'failure' }, result.latencyMs / 1000),
    deadLettered: () => deadLetters.inc(),
    autoDisabled: () => autoDisables.inc(),
  };
}
