import type pg from 'pg';
import { type Clock } from '@audit/shared/contract';
import { type Logger } from '@audit/shared/platform';
import { deliveryAttemptsRepository as attempts } from '@audit/shared/webhooks';
import { attemptsCutoff } from '../domain/attempt-retention.js';

/** How often the attempts past their retention are deleted (and once at start). */
export const ATTEMPT_SWEEP_MS = 3_600_000;
// Rows per statement: each one is short, so a large backlog never holds its locks, or one snapshot, for long.
const BATCH = 10_000;

export interface AttemptsSweepDeps {
  pool: pg.Pool;
  retentionDays: number;
  /** See `longestRetryWindowMs`: no attempt younger than this is deleted, whatever the retention. */
  longestWindowMs: number;
  clock: Clock;
  logger: Logger;
  /** Checked between statements: a shutdown waits for one statement at most. */
  stopping: () => boolean;
  batch?: number;
}

/**
 * Deletes the delivery attempts past their retention (docs/webhooks.md "Delivery attempts"), one bounded
 * statement after the other until none is left. Returns how many were deleted.
 */
export async function sweepAttempts(deps: AttemptsSweepDeps): Promise<number> {
  const cutoff = new Date(attemptsCutoff(deps.clock(), deps.retentionDays, deps.longestWindowMs));
  const batch = deps.batch ?? BATCH;
  let deleted = 0;
  for (;;) {
    const n = await attempts.deleteBefore(deps.pool, cutoff, batch);
    deleted += n;
    if (n < batch || deps.stopping()) break;
  }
  if (deleted > 0) {
    deps.logger.info(
      { deleted, before: cutoff.toISOString() },
      'delivery attempts past their retention deleted',
    );
  }
  return deleted;
}
