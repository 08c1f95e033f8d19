import type pg from 'pg';
import { type Clock } from '@audit/shared/contract';
import { expireJobFiles, exportJobsRepository as jobs, type ExportFiles } from '@audit/shared/export-jobs';
import { type Logger } from '@audit/shared/platform';

// Jobs expired per pass: a backlog (an exporter that was down for days) is worked off a batch at a time.
const BATCH = 100;

/** Expires the succeeded jobs whose files' lifetime has ended, a batch at a time. Returns how many expired. */
export async function expireDue(deps: {
  pool: pg.Pool;
  files: ExportFiles;
  clock: Clock;
  logger: Logger;
}): Promise<number> {
  const due = await jobs.dueForExpiry(deps.pool, deps.clock(), BATCH);
  const expired = await expireJobFiles(deps.pool, deps.files, due);
  if (expired > 0) deps.logger.info({ expired }, 'export files expired');
  return expired;
}
