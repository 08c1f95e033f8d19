import type { RetryPolicy } from './retry-schedule.js';

const DAY_MS = 86_400_000;

/**
 * The longest a delivery can run from its first attempt to its last: every retry at its latest, which is its
 * delay with the whole jitter added, or later when a receiver's Retry-After held it back (to `retryAfterMaxMs`
 * at most).
 */
export function longestRetryWindowMs(
  policy: Pick<RetryPolicy, 'delaysMs' | 'jitter'>,
  retryAfterMaxMs: number,
): number {
  return policy.delaysMs.reduce(
    (sum, delay) => sum + Math.max(Math.ceil(delay * (1 + policy.jitter)), retryAfterMaxMs),
    0,
  );
}

/**
 * Attempts made before this instant may be deleted: those older than the retention, but never one of a delivery
 * that may still be retried. Its attempts are what a redone delivery checks to neither send an attempt twice nor
 * count its terminal failure twice (docs/webhooks.md "Redone deliveries").
 */
export function attemptsCutoff(now: number, retentionDays: number, longestWindowMs: number): number {
  return now - Math.max(retentionDays * DAY_MS, longestWindowMs);
}
