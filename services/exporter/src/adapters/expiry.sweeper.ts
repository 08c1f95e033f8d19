import type pg from 'pg';
import { type Clock } from '@audit/shared/contract';
import { exportJobsRepository as jobs, type ExportFiles } from '@audit/shared/export-jobs';
import { type Logger } from '@audit/shared/platform';

// Jobs expired per pass: a backlog (an exporter that was down for days) is worked off a batch at a time.
const BATCH = 100;

/**
 * Ends the lifetime of succeeded jobs' files (docs/exports.md "Jobs"): the file is deleted first, then the job
 * says `expired`, so a job that says so never has a file left. Returns how many jobs expired.
 */
export async function expireDue(deps: {
  pool: pg.Pool;
  files: ExportFiles;
  clock: Clock;
  logger: Logger;
}): Promise<number> {
  let expired = 0;
  for (const job of await jobs.dueForExpiry(deps.pool, deps.clock(), BATCH)) {
    await deps.files.remove(job.jobId, job.format);
    if (await jobs.expire(deps.pool, job.jobId)) expired += 1;
  }
  if (expired > 0) deps.logger.info({ expired }, 'export files expired');
  return expired;
}
