import { formatTimestamp } from '@audit/shared/contract';
import { type ExportJobRequest } from '@audit/shared/export-jobs';
import { type EventFilters } from '@audit/shared/projection';
import type { ApiCall } from './api-call.js';
import type { ExportPlan } from './export-plan.js';
import type { ExportFormat } from './list-query.js';

const time = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? null : formatTimestamp(ms);

/** The filters as an export's audit event records them: times rendered as everywhere in the API. */
const renderedFilters = (filters: EventFilters) => ({
  ...filters,
  since: time(filters.since),
  until: time(filters.until),
});

const MISSING_SCOPE = 'missing scope audit:export';

/** Every export's `audit.export` event, by whom, on what: the resource is the export (or the export job). */
function exportEvent(call: ApiCall, exportId: string, success: boolean, details: object) {
  return {
    tenant_id: call.principal.tenantId,
    action: 'audit.export',
    user_id: `api_key:${call.principal.prefix}`,
    user_role: 'api_key',
    resource_type: 'audit_export',
    resource_id: exportId,
    phi_involved: false,
    success,
    source_ip: call.clientIp,
    user_agent: call.userAgent.slice(0, 1024),
    details,
  };
}

/**
 * docs/contract.md "Export": every export answered 200 writes `audit.export` (details: filters, format,
 * count, truncated); one refused for a missing scope writes it with success false.
 */
export function exportAuditEvent(
  call: ApiCall,
  outcome:
    | { success: true; exportId: string; filters: EventFilters; format: ExportFormat; plan: ExportPlan }
    | { success: false; exportId: string },
) {
  const details = outcome.success
    ? {
        filters: renderedFilters(outcome.filters),
        format: outcome.format,
        count: outcome.plan.count,
        truncated: outcome.plan.truncated,
        range: { newest: time(outcome.plan.newestTs), cut: time(outcome.plan.cutTs) },
      }
    : { reason: MISSING_SCOPE };
  return exportEvent(call, outcome.exportId, outcome.success, details);
}

/**
 * docs/exports.md "Jobs": a job's request writes `audit.export` (its end is the exporter's to record), with the
 * filters as given and the window's end fixed at acceptance; one refused for a missing scope writes it with
 * success false, the resource then being an id no job has.
 */
export function exportJobAuditEvent(
  call: ApiCall,
  outcome: { success: true; job: ExportJobRequest } | { success: false; jobId: string },
) {
  const stage = { kind: 'job', stage: 'requested' };
  return outcome.success
    ? exportEvent(call, outcome.job.jobId, true, {
        ...stage,
        format: outcome.job.format,
        filters: renderedFilters(outcome.job.filters),
        until: time(outcome.job.until),
      })
    : exportEvent(call, outcome.jobId, false, { ...stage, reason: MISSING_SCOPE });
}

/**
 * docs/exports.md "Jobs": every download of a job's file writes `audit.export` before any byte is sent, with the
 * byte range it sends (a resumed download is several ranges, each its own event).
 */
export function exportDownloadAuditEvent(
  call: ApiCall,
  job: Pick<ExportJobRequest, 'jobId' | 'format'>,
  sent: { sha256: string; start: number; end: number; size: number },
) {
  return exportEvent(call, job.jobId, true, {
    kind: 'job',
    stage: 'downloaded',
    format: job.format,
    sha256: sent.sha256,
    range: { start: sent.start, end: sent.end },
    size: sent.size,
  });
}
