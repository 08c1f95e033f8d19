import type {
  ExportJob,
  ExportJobFormat,
  ExportJobRequest,
  ExportJobStatus,
} from '@audit/shared/export-jobs';

/**
 * The job's status as the API states it: a succeeded job whose file's lifetime has ended is expired from that
 * moment on, even before the exporter has deleted the file and recorded it (docs/exports.md "Jobs").
 */
export function currentStatus(job: Pick<ExportJob, 'status' | 'expiresAt'>, now: number): ExportJobStatus {
  return job.status === 'succeeded' && job.expiresAt !== null && job.expiresAt <= now
    ? 'expired'
    : job.status;
}

/** A job just accepted, as stored: queued, with nothing written yet. */
export const queuedJob = (request: ExportJobRequest): ExportJob => ({
  ...request,
  status: 'queued',
  attempts: 0,
  startedAt: null,
  finishedAt: null,
  rowsWritten: 0,
  bytesWritten: 0,
  rowsExpected: null,
  manifest: null,
  error: null,
  expiresAt: null,
});

/** The files' media types (docs/exports.md "Files"): NDJSON and CSV are sent as the gzip files they are. */
export const EXPORT_MEDIA_TYPES: Record<ExportJobFormat, string> = {
  ndjson: 'application/gzip',
  csv: 'application/gzip',
  parquet: 'application/vnd.apache.parquet',
};
