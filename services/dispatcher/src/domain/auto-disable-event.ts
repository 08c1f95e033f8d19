import { describeTarget } from '@audit/shared';

/** decisions.md: an automatic disable writes admin.webhook.auto_disable into the tenant's own trail. */
export function autoDisableEvent(e: { id: string; tenantId: string; url: string }, failures: number) {
  return {
    tenant_id: e.tenantId,
    action: 'admin.webhook.auto_disable',
    user_id: 'service:dispatcher',
    user_role: 'system',
    resource_type: 'webhook_endpoint',
    resource_id: e.id,
    phi_involved: false,
    success: true,
    user_agent: 'audit-dispatcher',
    details: { endpoint_id: e.id, ...describeTarget(e.url), consecutive_failures: failures },
  };
}
