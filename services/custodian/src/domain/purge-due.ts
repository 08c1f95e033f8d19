import type { PurgeCandidate } from '@audit/shared/retention';

export interface PurgeSchedule {
  /** A tenant's purge runs again at most this long after its last one began. */
  everyMs: number;
  /** A failed purge is tried again this long after it ended. */
  retryMs: number;
}

/**
 * Whether a tenant's purge is due (docs/retention.md "The schedule"): never run, its last run began `everyMs` ago
 * or failed `retryMs` ago, or a run is still said to be running (its lock tells whether it really is: a run whose
 * process stopped holds none, and the next purge records it failed). `quietUntil` is when a check that found
 * nothing to remove lets the tenant be checked again.
 */
export function purgeDue(
  candidate: PurgeCandidate,
  schedule: PurgeSchedule,
  now: number,
  quietUntil: number | undefined,
): boolean {
  if (quietUntil !== undefined && now < quietUntil) return false;
  const { last } = candidate;
  if (last === null) return true;
  switch (last.status) {
    case 'running':
      return true;
    case 'succeeded':
      return now - last.started_at.getTime() >= schedule.everyMs;
    case 'failed':
      return now - (last.finished_at ?? last.started_at).getTime() >= schedule.retryMs;
  }
}
