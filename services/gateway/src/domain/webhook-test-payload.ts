import { NO_PATIENT_FIELDS } from '@audit/shared/contract';
import { deliveryPayload, type WebhookEndpointRecord } from '@audit/shared/webhooks';
import type { ApiCall } from './api-call.js';
import { endpointActedOn } from './webhook-audit-event.js';

const TEST_PAYLOAD_TYPE = 'webhook.test';
const TEST_PAYLOAD_MESSAGE = 'A test delivery: no audit event behind it.';

/**
 * A test send's body (docs/webhooks.md "Test deliveries"): the delivery envelope, built by the dispatcher's own
 * function, around a synthetic event of type `webhook.test` about the endpoint, made by the calling key. Fields the
 * envelope does not carry are left empty.
 */
export function testPayload(call: ApiCall, endpoint: WebhookEndpointRecord, id: string, now: number): Buffer {
  return deliveryPayload({
    event_id: id,
    timestamp: now,
    tenant_id: endpoint.tenant_id,
    action: TEST_PAYLOAD_TYPE,
    ...endpointActedOn(call, endpoint),
    details: JSON.stringify({ message: TEST_PAYLOAD_MESSAGE }),
    fields_accessed: '[]',
    source_ip: '',
    user_agent: '',
    justification: '',
    leaf_salts: '',
    ingested_at: now,
    ...NO_PATIENT_FIELDS,
  });
}
