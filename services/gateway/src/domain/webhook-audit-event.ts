import { describeTarget, formatTimestamp, type WebhookEndpointRecord } from '@audit/shared';
import type { ApiCall } from './api-call.js';

export type WebhookChange = 'create' | 'disable' | 'delete' | 'rotate_secret';

/**
 * docs/contract.md "Webhooks": every change writes admin.webhook.*; never the secret, nor the URL's query.
 * Creation and rotation name the endpoint's version, which the dispatcher waits for (docs/webhooks.md
 * "Delivery").
 */
export function webhookAuditEvent(call: ApiCall, change: WebhookChange, endpoint: WebhookEndpointRecord) {
  const target = { endpoint_id: endpoint.id, ...describeTarget(endpoint.url) };
  const details =
    change === 'create'
      ? {
          ...target,
          event_filter: endpoint.event_filter,
          description: endpoint.description,
          endpoint_version: endpoint.version,
        }
      : change === 'rotate_secret'
        ? {
            ...target,
            endpoint_version: endpoint.version,
            previous_secret_expires_at: formatTimestamp(endpoint.previous_secret_expires_at!.getTime()),
          }
        : { ...target, was_active: endpoint.active };
  return {
    tenant_id: call.principal.tenantId,
    action: `admin.webhook.${change}`,
    user_id: `api_key:${call.principal.prefix}`,
    user_role: 'api_key',
    resource_type: 'webhook_endpoint',
    resource_id: endpoint.id,
    phi_involved: false,
    success: true,
    source_ip: call.clientIp,
    user_agent: call.userAgent.slice(0, 1024),
    details,
  };
}
