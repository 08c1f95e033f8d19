import { describeTarget, type WebhookEndpointRecord } from '@audit/shared';
import type { ApiCall } from './api-call.js';

type Change = 'create' | 'disable' | 'delete';

/**
 * docs/contract.md "Webhooks": creation, disable and delete write admin.webhook.*; never the secret, nor the
 * URL's query.
 */
export function webhookAuditEvent(call: ApiCall, change: Change, endpoint: WebhookEndpointRecord) {
  const details =
    change === 'create'
      ? {
          endpoint_id: endpoint.id,
          ...describeTarget(endpoint.url),
          event_filter: endpoint.event_filter,
          description: endpoint.description,
        }
      : { endpoint_id: endpoint.id, ...describeTarget(endpoint.url), was_active: endpoint.active };
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
