import type pg from 'pg';
import { UUID_PATTERN } from '@audit/shared/contract';
import {
  EXPORT_JOB_STATUSES,
  exportJobsRepository as jobs,
  type ExportJob,
  type ExportJobStatus,
} from '@audit/shared/export-jobs';
import { CommitFailedError, inTransaction, sleep } from '@audit/shared/platform';
import type { AuditedContext } from '../contexts.js';
import type { Operator } from '../domain/key-audit-event.js';
import { CliError } from './cli-error.js';

/** Checked before anything connects: a wrong argument is a usage error whatever state Postgres is in. */
export function checkJobId(id: string | undefined): string {
  if (!id || !UUID_PATTERN.test(id)) throw new CliError('--id must be the export job id, a UUID', 2);
  return id.toLowerCase();
}

export function checkStatus(status: string | undefined): ExportJobStatus | undefined {
  if (status === undefined) return undefined;
  if (!(EXPORT_JOB_STATUSES as readonly string[]).includes(status)) {
    throw new CliError(`--status must be one of ${EXPORT_JOB_STATUSES.join(', ')}`, 2);
  }
  return status as ExportJobStatus;
}

async function found(pool: pg.Pool, id: string): Promise<ExportJob> {
  const job = await jobs.find(pool, id);
  if (!job) throw new CliError(`no export job ${id}`);
  return job;
}

/** The audit event of an operator's cancellation, in the job's tenant trail. */
function cancelEvent(job: ExportJob, operator: Operator) {
  return {
    tenant_id: job.tenantId,
    action: 'admin.export.cancel',
    user_id: operator.id,
    user_role: 'operator',
    resource_type: 'audit_export',
    resource_id: job.jobId,
    phi_involved: false,
    success: true,
    user_agent: 'audit-ops-cli',
    details: { kind: 'job', format: job.format, requested_by: job.requestedBy },
  };
}

export const exportsCommands = {
  list: (pool: pg.Pool, where: { tenantId?: string; status?: ExportJobStatus }, limit: number) =>
    jobs.search(pool, where, limit),

  show: found,

  /**
   * Waits until the job has ended, reporting its progress as it changes; `progress` is called at most once a
   * `pollMs` and once more at the end.
   */
  async follow(pool: pg.Pool, id: string, progress: (job: ExportJob) => void, pollMs = 1000) {
    for (;;) {
      const job = await found(pool, id);
      progress(job);
      if (job.status !== 'queued' && job.status !== 'running') return job;
      await sleep(pollMs);
    }
  },

  /**
   * Ends a queued or running job as failed (`cancelled`); committed only once Kafka has its `admin.export.cancel`
   * event. A job that had already ended is left as it is (`changed: false`).
   */
  async cancel(ctx: AuditedContext, id: string): Promise<{ job: ExportJob; changed: boolean }> {
    await found(ctx.pool, id);
    const cancelled = await inTransaction(ctx.pool, async (db) => {
      const job = await jobs.cancel(db, id, Date.now(), ctx.operator.id);
      if (job) await ctx.publisher.publish([cancelEvent(job, ctx.operator)]);
      return job;
    }).catch((err: unknown) => {
      if (!(err instanceof CommitFailedError)) throw err;
      throw new CliError(
        `the audit event was written, but the cancellation could not be committed (${err.message})`,
      );
    });
    return cancelled ? { job: cancelled, changed: true } : { job: await found(ctx.pool, id), changed: false };
  },
};
