import type pg from 'pg';
import {
  exportJobsRepository as repo,
  type ExportJob,
  type ExportJobRequest,
} from '@audit/shared/export-jobs';
import { inTransaction, lockTenant } from '@audit/shared/platform';

/** Announces an accepted job (its audit event, its request record); the job commits only after it resolved. */
export type AnnounceJob = (job: ExportJobRequest) => Promise<void>;

/** Export jobs in Postgres, as the API reads and creates them. */
export function exportJobStore(pool: pg.Pool) {
  return {
    /**
     * Stores the job unless its tenant already has `inFlight` jobs queued or running (false). The tenant's lock
     * makes the count exact under concurrent requests, and `announce` runs inside the transaction: a job whose
     * announcement failed is rolled back, never stored.
     */
    create(job: ExportJobRequest, inFlight: number, announce: AnnounceJob): Promise<boolean> {
      return inTransaction(pool, async (db) => {
        await lockTenant(db, 'exportJobs', job.tenantId);
        if ((await repo.countInFlight(db, job.tenantId)) >= inFlight) return false;
        await repo.insert(db, job);
        await announce(job);
        return true;
      });
    },

    get: (tenantId: string, jobId: string): Promise<ExportJob | null> => repo.get(pool, tenantId, jobId),

    list: (
      tenantId: string,
      after: { acceptedAt: number; jobId: string } | null,
      limit: number,
    ): Promise<ExportJob[]> => repo.list(pool, tenantId, after, limit),
  };
}

export type ExportJobStore = ReturnType<typeof exportJobStore>;
