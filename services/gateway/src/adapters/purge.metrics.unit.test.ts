import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Registry } from '@audit/shared/platform';
import type { PurgeTotals } from '@audit/shared/retention';
import { registerPurgeMetrics } from './purge.metrics.js';

const NOW = Date.UTC(2026, 10, 30, 12);

async function scrape(totals: () => Promise<PurgeTotals>) {
  const registry = new Registry();
  registerPurgeMetrics(registry, { totals }, pino({ level: 'silent' }), () => NOW);
  return registry.metrics();
}

describe('the purge metrics', () => {
  it('count the runs by status, the events removed, and how long the oldest running run has run', async () => {
    const text = await scrape(async () => ({
      runs: { running: 1, succeeded: 3, failed: 2 },
      purged: 1204,
      oldestRunning: new Date(NOW - 90_000),
    }));
    const samples = text.split('\n').filter((l) => l.startsWith('retention_'));
    expect(samples).toEqual([
      'retention_purge_runs{status="running"} 1',
      'retention_purge_runs{status="succeeded"} 3',
      'retention_purge_runs{status="failed"} 2',
      'retention_purged_events 1204',
      'retention_purge_running_seconds 90',
    ]);
  });

  it('leave their series out while Postgres does not answer, and say 0 s when nothing runs', async () => {
    const down = await scrape(() => Promise.reject(new Error('ECONNREFUSED')));
    expect(down).not.toMatch(/^retention_purge/m);
    const idle = await scrape(async () => ({
      runs: { running: 0, succeeded: 1, failed: 0 },
      purged: 7,
      oldestRunning: null,
    }));
    expect(idle).toContain('retention_purge_running_seconds 0');
  });
});
