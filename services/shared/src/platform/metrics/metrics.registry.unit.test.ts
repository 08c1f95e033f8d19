import { describe, expect, it } from 'vitest';
import { Counter, createMetrics } from './metrics.registry.js';

describe('createMetrics', () => {
  it('holds the process metrics, every series labelled with the service', async () => {
    const registry = createMetrics('ingest');
    const text = await registry.metrics();
    expect(text).toMatch(/^process_cpu_user_seconds_total\{service="ingest"\} /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes\{service="ingest"\} /m);
  });

  it('names no gauge like a counter; active handles, requests and resources stay, by type', async () => {
    const text = await createMetrics('ingest').metrics();
    const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name, type }));
    expect(types.filter(({ name, type }) => type !== 'counter' && name!.endsWith('_total'))).toEqual([]);
    for (const name of ['nodejs_active_handles', 'nodejs_active_requests', 'nodejs_active_resources']) {
      expect(types).toContainEqual({ name, type: 'gauge' });
    }
  });

  it('gives each app its own registry', async () => {
    const [a, b] = [createMetrics('a'), createMetrics('b')];
    new Counter({ name: 'only_in_a_total', help: 'test', registers: [a] }).inc();
    expect(await a.metrics()).toContain('only_in_a_total{service="a"} 1');
    expect(await b.metrics()).not.toContain('only_in_a_total');
  });
});
