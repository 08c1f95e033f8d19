import { describe, expect, it } from 'vitest';
import { ingestEventSchema } from '@audit/shared/contract';
import { endpointRecord } from '../test-support/webhook-endpoint.js';
import type { ApiCall } from './api-call.js';
import { webhookAuditEvent } from './webhook-audit-event.js';
import { parseCreateWebhook } from './webhook-request.js';

const call: ApiCall = {
  principal: { prefix: 'ab12cd34', tenantId: 'acme', scopes: new Set(['webhooks:write'] as const) },
  clientIp: '203.0.113.7',
  userAgent: 'curl/8',
};

describe('webhookAuditEvent: patient_filter', () => {
  it('names the patient filter at creation, and after an update that changed it', () => {
    const endpoint = endpointRecord({ patient_filter: ['p-1042'] });
    expect(webhookAuditEvent(call, 'create', endpoint).details).toMatchObject({ patient_filter: ['p-1042'] });
    const changed = webhookAuditEvent(call, 'update', endpoint, { changed: ['patient_filter'] }).details;
    expect(changed).toMatchObject({ changed: ['patient_filter'], patient_filter: ['p-1042'] });
    const other = webhookAuditEvent(call, 'update', endpoint, { changed: ['description'] }).details;
    expect(other).not.toHaveProperty('patient_filter');
  });

  it('stays a valid event (details within 64 KiB) with the fullest filters and label the API takes', () => {
    // Each of the longest values in the characters that take the most bytes as JSON.
    const body = {
      url: `https://siem.example.com/${'a'.repeat(2000)}`,
      event_filter: Array.from({ length: 50 }, () => 'a'.repeat(100)),
      patient_filter: Array.from({ length: 50 }, () => '\uffff'.repeat(256)),
      description: '\u0001'.repeat(500),
    };
    const parsed = parseCreateWebhook(body);
    expect(parsed.ok).toBe(true);
    const endpoint = endpointRecord(parsed.ok ? parsed.value : {});
    for (const event of [
      webhookAuditEvent(call, 'create', endpoint),
      webhookAuditEvent(call, 'update', endpoint, {
        changed: ['url', 'event_filter', 'patient_filter', 'description'],
      }),
    ]) {
      expect(ingestEventSchema.safeParse(event).error).toBeUndefined();
    }
  });
});
