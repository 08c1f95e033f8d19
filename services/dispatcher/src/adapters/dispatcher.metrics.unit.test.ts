import { describe, expect, it } from 'vitest';
import { Registry, type PartitionLag } from '@audit/shared/platform';
import { dispatcherMetrics, retryTierDepth, tierOf } from './dispatcher.metrics.js';

const retryTopics = ['r1', 'r2', 'r3'];
const row = (group: string, topic: string, partition: number, lag: number): PartitionLag => ({
  group,
  topic,
  partition,
  lag,
});

describe('tierOf', () => {
  it('is 0 for the first attempt, n for retry n, and never beyond the last tier', () => {
    expect([1, 2, 6, 7, 1000, 0].map(tierOf)).toEqual(['0', '1', '5', '5', '5', '0']);
  });
});

describe('retryTierDepth', () => {
  it("sums the retry group's lag per tier topic, ignoring other groups and topics", () => {
    const rows = [
      row('retries', 'r1', 0, 3),
      row('retries', 'r1', 1, 4),
      row('retries', 'r3', 0, 1),
      row('events', 'r2', 0, 9),
      row('retries', 'audit', 0, 9),
    ];
    expect(Object.fromEntries(retryTierDepth(rows, 'retries', retryTopics))).toEqual({ 1: 7, 2: 0, 3: 1 });
  });
});

describe('dispatcher metrics', () => {
  it('count deliveries by outcome and tier, attempts, dead letters and auto-disables', async () => {
    const registry = new Registry();
    const meter = dispatcherMetrics(registry, {
      lag: async () => [row('retries', 'r2', 0, 5)],
      retriesGroup: 'retries',
      retryTopics,
    });
    meter.settled('delivered', 1);
    meter.settled('retry', 3);
    meter.settled('deferred', 1);
    meter.attempted({ ok: false, status: 503, error: 'status 503', latencyMs: 120 });
    meter.deadLettered();
    meter.autoDisabled();
    const body = await registry.metrics();
    expect(body).toContain('webhook_deliveries_total{outcome="delivered",tier="0"} 1');
    expect(body).toContain('webhook_deliveries_total{outcome="retry",tier="2"} 1');
    expect(body).toContain('webhook_deliveries_total{outcome="deferred",tier="0"} 1');
    expect(body).toContain('webhook_deliveries_total{outcome="terminal",tier="5"} 0');
    expect(body).toContain('webhook_delivery_duration_seconds_count{result="failure"} 1');
    expect(body).toContain('webhook_delivery_duration_seconds_sum{result="failure"} 0.12');
    expect(body).toContain('webhook_dead_letters_total 1');
    expect(body).toContain('webhook_auto_disables_total 1');
    expect(body).toContain('webhook_retry_tier_depth{tier="2"} 5');
    expect(body).toContain('webhook_retry_tier_depth{tier="1"} 0');
  });

  it('leaves the tier depths out when Kafka gave no answer', async () => {
    const registry = new Registry();
    dispatcherMetrics(registry, { lag: async () => null, retriesGroup: 'retries', retryTopics });
    expect(await registry.metrics()).not.toContain('webhook_retry_tier_depth{');
  });
});
