import { describe, expect, it } from 'vitest';
import { sampleRecord } from '../test-support/sample-record.js';
import { deliveryPayload } from './delivery-payload.js';

const EVENT_ID = '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90';

describe('deliveryPayload', () => {
  it("is the spec's envelope in its order, then the event's patient", () => {
    const event = sampleRecord({ event_id: EVENT_ID, patient_id: 'p-1042' });
    expect(deliveryPayload(event).toString('utf8')).toBe(
      `{"type":"phi.read","id":"${EVENT_ID}","timestamp":"2026-11-21T10:00:00.123+00:00","tenant_id":"tenant-a",` +
        '"actor":{"user_id":"user-1","user_role":"clinician"},"resource":{"type":"claim","id":"clm_1"},' +
        '"phi_involved":true,"success":true,"details":{"reason":"review"},"schema_version":"1",' +
        '"patient_id":"p-1042"}',
    );
  });

  it('says "" for an event that names no patient', () => {
    const payload = JSON.parse(deliveryPayload(sampleRecord()).toString('utf8')) as Record<string, unknown>;
    expect(payload.patient_id).toBe('');
  });
});
