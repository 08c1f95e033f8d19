import { describe, expect, it } from 'vitest';
import { attemptsCutoff, longestRetryWindowMs } from './attempt-retention.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const spec = { delaysMs: [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000], jitter: 0.2 };

describe('delivery attempts retention', () => {
  it('takes every retry at its latest: the whole jitter added, or the Retry-After cap where that is longer', () => {
    // 1m, 5m, 30m, 2h and 12h, each 20 % late: 17 h 31 min 12 s; a cap of one minute holds none of them longer.
    expect(longestRetryWindowMs(spec, 60_000)).toBe(1.2 * 60_000 * (1 + 5 + 30 + 120 + 720));
    // The default cap (24 h) is longer than every tier: five retries each held back a day.
    expect(longestRetryWindowMs(spec, 24 * HOUR_MS)).toBe(5 * DAY_MS);
    expect(longestRetryWindowMs({ delaysMs: [], jitter: 0.2 }, 24 * HOUR_MS)).toBe(0);
  });

  it('deletes attempts older than the retention, never those of a delivery that may still retry', () => {
    const now = Date.UTC(2026, 10, 21);
    expect(attemptsCutoff(now, 30, 5 * DAY_MS)).toBe(now - 30 * DAY_MS);
    expect(attemptsCutoff(now, 1, 5 * DAY_MS)).toBe(now - 5 * DAY_MS);
  });
});
