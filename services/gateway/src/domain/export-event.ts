import { formatTimestamp } from '@audit/shared';
import type { ApiCall } from './api-call.js';
import type { ExportPlan } from './export-plan.js';
import type { EventFilters } from './event-filters.js';
import type { ExportFormat } from './list-query.js';

const time = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? null : formatTimestamp(ms);

/**
 * docs/contract.md "Export": every export answered 200 writes `audit.export` (details: filters, format,
 * count, truncated); one refused for a missing scope writes it with success false. Times are rendered as
 * everywhere in the API.
 */
export function exportAuditEvent(
  call: ApiCall,
  outcome:
    | { success: true; exportId: string; filters: EventFilters; format: ExportFormat; plan: ExportPlan }
    | { success: false; exportId: string },
) {
  const details = outcome.success
    ? {
        filters: {
          ...outcome.filters,
          since: time(outcome.filters.since),
          until: time(outcome.filters.until),
        },
        format: outcome.format,
        count: outcome.plan.count,
        truncated: outcome.plan.truncated,
        range: { newest: time(outcome.plan.newestTs), cut: time(outcome.plan.cutTs) },
      }
    : { reason: 'missing scope audit:export' };
  return {
    tenant_id: call.principal.tenantId,
    action: 'audit.export',
    user_id: `api_key:${call.principal.prefix}`,
    user_role: 'api_key',
    resource_type: 'audit_export',
    resource_id: outcome.exportId,
    phi_involved: false,
    success: outcome.success,
    source_ip: call.clientIp,
    user_agent: call.userAgent.slice(0, 1024),
    details,
  };
}
