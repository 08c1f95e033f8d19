import type pg from 'pg';
import type { ExportFiles } from './export-files.js';
import type { ExportJob } from './export-job.js';
import { exportJobsRepository } from './export-jobs.repository.js';

/**
 * Ends the lifetime of succeeded jobs' files (docs/exports.md "Jobs"): each file is deleted first, then its job
 * says `expired`, so a job that says so never has a file left. Returns how many jobs expired.
 */
export async function expireJobFiles(
  db: Pick<pg.ClientBase, 'query'>,
  files: Pick<ExportFiles, 'remove'>,
  jobs: readonly Pick<ExportJob, 'jobId' | 'format'>[],
): Promise<number> {
  let expired = 0;
  for (const job of jobs) {
    await files.remove(job.jobId, job.format);
    if (await exportJobsRepository.expire(db, job.jobId)) expired += 1;
  }
  return expired;
}
