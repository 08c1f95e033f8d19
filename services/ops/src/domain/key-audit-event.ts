import type { ApiKeyRecord } from '@audit/shared/api-keys';

export interface Operator {
  id: string;
}

/**
 * The audit event an operator's key change writes: admin.key.create or admin.key.revoke
 * (docs/contract.md "API keys").
 */
export function keyAuditEvent(
  action: 'admin.key.create' | 'admin.key.revoke',
  key: ApiKeyRecord,
  operator: Operator,
) {
  return {
    tenant_id: key.tenant_id,
    action,
    user_id: operator.id,
    user_role: 'operator',
    resource_type: 'api_key',
    resource_id: key.prefix,
    phi_involved: false,
    success: true,
    user_agent: 'audit-ops-cli',
    details: {
      env: key.env,
      scopes: key.scopes,
      ip_allow: key.ip_allow,
      label: key.label,
      ...(key.rotated_from ? { rotated_from: key.rotated_from } : {}),
    },
  };
}
