import type pg from 'pg';
import { exportJobsRepository as jobs } from '@audit/shared/export-jobs';
import { loggableError, type Logger } from '@audit/shared/platform';

/** The attempt no longer owns its job (cancelled, or taken by another attempt): it stops without changing it. */
export class LostJobError extends Error {
  override name = 'LostJobError';
}

/** Where an attempt is: rows and bytes written, and the rows counted once the window's plan is made. */
export interface AttemptProgress {
  rowsWritten: number;
  bytesWritten: number;
  rowsExpected: number | null;
}

/**
 * An attempt's hold on its job (docs/exports.md "Fair share"): its progress recorded and its lease renewed every
 * `everyMs`, whatever the attempt is doing (waiting for the projection, reading, writing). `signal` is aborted
 * with a LostJobError once a renewal finds the job no longer the attempt's. A renewal that fails (Postgres away)
 * is logged: the lease may then run out, and the job's next taker fences this attempt off.
 */
export function jobLease(deps: {
  pool: pg.Pool;
  jobId: string;
  attempt: number;
  leaseMs: number;
  everyMs: number;
  progress: AttemptProgress;
  logger: Logger;
}) {
  const lost = new AbortController();
  let renewing = Promise.resolve();
  const renew = async () => {
    const owned = await jobs.progress(deps.pool, deps.jobId, deps.attempt, deps.progress, deps.leaseMs);
    if (!owned) lost.abort(new LostJobError());
  };
  const timer = setInterval(() => {
    renewing = renewing.then(renew).catch((err: unknown) => {
      deps.logger.warn({ err: loggableError(err) }, 'export job progress not recorded');
    });
  }, deps.everyMs);
  return {
    signal: lost.signal,
    /** Records the progress at once (the plan's count, before the first row). */
    renewNow: (): Promise<void> => (renewing = renewing.then(renew)),
    /** Stops renewing, once the renewal under way (if any) has ended. */
    async end(): Promise<void> {
      clearInterval(timer);
      await renewing.catch(() => undefined);
    },
  };
}
