import { randomUUID } from 'node:crypto';
import { inFlight, type ExportJob, type ExportJobRequest } from '@audit/shared/export-jobs';
import type { ExportJobStore } from '../adapters/export-job-store.js';
import { queuedJob } from '../domain/export-job-state.js';

/** A job request of `tenantId`, accepted at `acceptedAt`. */
export const jobRequest = (
  tenantId: string,
  acceptedAt: number,
  overrides: Partial<ExportJobRequest> = {},
): ExportJobRequest => ({
  jobId: randomUUID(),
  tenantId,
  format: 'csv',
  filters: { since: acceptedAt - 86_400_000 },
  since: acceptedAt - 86_400_000,
  until: acceptedAt,
  acceptedAt,
  requestedBy: 'abcd1234',
  ...overrides,
});

/** A job that succeeded with a file of `byteSize` bytes, kept for a week. */
export const succeededJob = (
  request: ExportJobRequest,
  byteSize: number,
  sha256 = 'ab'.repeat(32),
): ExportJob => ({
  ...queuedJob(request),
  status: 'succeeded',
  attempts: 1,
  startedAt: request.acceptedAt + 1000,
  finishedAt: request.acceptedAt + 60_000,
  rowsWritten: 3,
  bytesWritten: byteSize,
  rowsExpected: 3,
  manifest: {
    rowCount: 3,
    byteSize,
    sha256,
    first: { ts: request.until - 1, eventId: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90' },
    last: { ts: request.since, eventId: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b91' },
  },
  expiresAt: request.acceptedAt + 7 * 86_400_000,
});

/** The store's semantics in memory: the in-flight limit, announcement before storing, tenants apart, the order. */
export function memoryExportJobs(initial: ExportJob[] = []): Pick<
  ExportJobStore,
  'create' | 'get' | 'list'
> & {
  jobs: ExportJob[];
} {
  const jobs = [...initial];
  const newestFirst = (a: ExportJob, b: ExportJob) =>
    b.acceptedAt - a.acceptedAt || (b.jobId < a.jobId ? -1 : b.jobId > a.jobId ? 1 : 0);
  return {
    jobs,
    async create(job, limit, announce) {
      if (jobs.filter((j) => j.tenantId === job.tenantId && inFlight(j.status)).length >= limit) return false;
      await announce(job);
      jobs.push(queuedJob(job));
      return true;
    },
    get: async (tenantId, jobId) => jobs.find((j) => j.tenantId === tenantId && j.jobId === jobId) ?? null,
    list: async (tenantId, after, limit) =>
      jobs
        .filter((j) => j.tenantId === tenantId)
        .sort(newestFirst)
        .filter(
          (j) =>
            !after ||
            j.acceptedAt < after.acceptedAt ||
            (j.acceptedAt === after.acceptedAt && j.jobId < after.jobId),
        )
        .slice(0, limit),
  };
}
