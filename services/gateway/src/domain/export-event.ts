import type { EventFilters, ExportFormat } from './list-query.js';
import type { Principal } from './authenticate.js';

export interface ExportCall {
  principal: Principal;
  clientIp: string;
  userAgent: string;
}

/** decisions.md: every export answered 200 writes `audit.export`; one refused for a missing scope, success false. */
export function exportAuditEvent(
  call: ExportCall,
  outcome:
    | { success: true; filters: EventFilters; format: ExportFormat; count: number; truncated: boolean }
    | { success: false },
) {
  const { success, ...details } = outcome;
  return {
    tenant_id: call.principal.tenantId,
    action: 'audit.export',
    user_id: `api_key:${call.principal.prefix}`,
    user_role: 'api_key',
    resource_type: 'audit_export',
    phi_involved: false,
    success,
    source_ip: call.clientIp,
    user_agent: call.userAgent.slice(0, 1024),
    details: success ? details : { reason: 'missing scope audit:export' },
  };
}
