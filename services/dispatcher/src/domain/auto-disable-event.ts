import { createHash } from 'node:crypto';
import { describeTarget } from '@audit/shared/webhooks';

/**
 * An endpoint is auto-disabled once at most (it is never re-enabled), so its event id is derived from the
 * endpoint: a publish retried after a timeout lands as the same event, which the projector stores once.
 */
export function autoDisableEventId(endpointId: string): string {
  const h = createHash('sha256').update(`admin.webhook.auto_disable:${endpointId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Why the dispatcher disabled an endpoint: too many terminal failures in a row, or a 410 Gone. */
export type AutoDisableReason = 'consecutive_failures' | 'gone';

/**
 * An automatic disable writes admin.webhook.auto_disable into the tenant's own trail
 * (docs/contract.md "Delivery", docs/webhooks.md "Receiver signals").
 */
export function autoDisableEvent(
  e: { id: string; tenantId: string; url: string },
  failures: number,
  reason: AutoDisableReason = 'consecutive_failures',
) {
  return {
    event_id: autoDisableEventId(e.id),
    tenant_id: e.tenantId,
    action: 'admin.webhook.auto_disable',
    user_id: 'service:dispatcher',
    user_role: 'system',
    resource_type: 'webhook_endpoint',
    resource_id: e.id,
    phi_involved: false,
    success: true,
    user_agent: 'audit-dispatcher',
    details: { endpoint_id: e.id, ...describeTarget(e.url), consecutive_failures: failures, reason },
  };
}
