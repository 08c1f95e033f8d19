import type { Operator } from './key-audit-event.js';

/**
 * The audit event of an operator's naming of a tenant (docs/operations.md "Tenant names and patient access
 * reports"), in that tenant's trail: the name its reports are headed with, and the one it replaced.
 */
export function tenantUpdateEvent(tenant: string, name: string, previous: string | null, operator: Operator) {
  return {
    tenant_id: tenant,
    action: 'admin.tenant.update',
    user_id: operator.id,
    user_role: 'operator',
    resource_type: 'tenant',
    resource_id: tenant,
    phi_involved: false,
    success: true,
    user_agent: 'audit-ops-cli',
    details: { display_name: name, previous },
  };
}
