import type { ExportJobRequest, ExportManifest } from '@audit/shared/export-jobs';

/**
 * The `audit.export` event a job writes when it ends (docs/exports.md "Jobs"), in the shape ingest validates. It
 * names the API key that requested the job, as the event of the request does, so that an auditor filtering by
 * `user_id` sees both.
 */
export function jobEndedEvent(
  job: ExportJobRequest,
  outcome:
    | { success: true; manifest: ExportManifest }
    | { success: false; error: { code: string; message: string } },
) {
  const details = outcome.success
    ? {
        kind: 'job',
        stage: 'completed',
        format: job.format,
        count: outcome.manifest.rowCount,
        byte_size: outcome.manifest.byteSize,
        sha256: outcome.manifest.sha256,
      }
    : { kind: 'job', stage: 'failed', format: job.format, error: outcome.error };
  return {
    tenant_id: job.tenantId,
    action: 'audit.export',
    user_id: `api_key:${job.requestedBy}`,
    user_role: 'api_key',
    resource_type: 'audit_export',
    resource_id: job.jobId,
    phi_involved: false,
    success: outcome.success,
    details,
  };
}
