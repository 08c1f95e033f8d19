import type { WebhookEndpointRecord } from '@audit/shared/webhooks';

/** A stored webhook endpoint for route tests: active, version 2, a rotation's overlap running; change what a test needs. */
export function endpointRecord(overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  return {
    id: 'wh_0000abcd',
    tenant_id: 'acme',
    url: 'https://public.example/hook',
    event_filter: [],
    patient_filter: [],
    description: '',
    active: true,
    created_at: new Date(0),
    disabled_at: null,
    consecutive_failures: 0,
    last_delivery_at: null,
    version: 2,
    previous_secret_expires_at: new Date(Date.UTC(2026, 10, 27)),
    rate_limit_per_second: null,
    ...overrides,
  };
}
