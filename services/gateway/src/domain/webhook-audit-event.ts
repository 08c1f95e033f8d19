import { formatTimestamp } from '@audit/shared/contract';
import { describeTarget, type WebhookEndpointRecord, type WebhookReplay } from '@audit/shared/webhooks';
import type { ApiCall } from './api-call.js';
import type { UpdateWebhook } from './webhook-request.js';

export type WebhookChange = 'create' | 'update' | 'disable' | 'delete' | 'rotate_secret' | 'test' | 'replay';

/**
 * What the endpoint's row cannot tell: the fields an update was given, the payload id of a test send, the replay
 * asked for.
 */
export interface ChangeContext {
  changed?: readonly (keyof UpdateWebhook)[];
  testId?: string;
  replay?: Pick<WebhookReplay, 'id' | 'since' | 'until'>;
}

/** Who acted on which endpoint, as the change's audit event and a test send's synthetic event both say it. */
export const endpointActedOn = (call: ApiCall, endpoint: WebhookEndpointRecord) => ({
  user_id: `api_key:${call.principal.prefix}`,
  user_role: 'api_key',
  resource_type: 'webhook_endpoint',
  resource_id: endpoint.id,
  phi_involved: false,
  success: true,
});

/**
 * docs/contract.md "Webhooks": every change (and every test send) writes admin.webhook.*; never the secret, nor
 * the URL's query. Creation, update and rotation name the endpoint's version, which the dispatcher waits for
 * (docs/webhooks.md "Delivery").
 */
export function webhookAuditEvent(
  call: ApiCall,
  change: WebhookChange,
  endpoint: WebhookEndpointRecord,
  context: ChangeContext = {},
) {
  const target = { endpoint_id: endpoint.id, ...describeTarget(endpoint.url) };
  return {
    tenant_id: call.principal.tenantId,
    action: `admin.webhook.${change}`,
    ...endpointActedOn(call, endpoint),
    source_ip: call.clientIp,
    user_agent: call.userAgent.slice(0, 1024),
    details: { ...target, ...changeDetails(change, endpoint, context) },
  };
}

function changeDetails(change: WebhookChange, endpoint: WebhookEndpointRecord, context: ChangeContext) {
  switch (change) {
    case 'create':
      return {
        event_filter: endpoint.event_filter,
        patient_filter: endpoint.patient_filter,
        description: endpoint.description,
        rate_limit_per_second: endpoint.rate_limit_per_second,
        endpoint_version: endpoint.version,
      };
    case 'update': {
      const changed = context.changed ?? [];
      // The new values of what changed; a new URL is the target above, never with its query.
      const values = Object.fromEntries(
        (['event_filter', 'patient_filter', 'description', 'rate_limit_per_second'] as const)
          .filter((field) => changed.includes(field))
          .map((field) => [field, endpoint[field]]),
      );
      return { changed, ...values, endpoint_version: endpoint.version };
    }
    case 'rotate_secret':
      return {
        endpoint_version: endpoint.version,
        previous_secret_expires_at: formatTimestamp(endpoint.previous_secret_expires_at!.getTime()),
      };
    case 'test':
      return { test_id: context.testId };
    case 'replay':
      return {
        replay_id: context.replay?.id,
        since: formatTimestamp(context.replay!.since),
        until: formatTimestamp(context.replay!.until),
      };
    default:
      return { was_active: endpoint.active };
  }
}
