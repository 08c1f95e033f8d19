import { describe, expect, it } from 'vitest';
import { jobFromRecord, jobHeaders, type DeliveryJob } from '@audit/shared/webhooks';
import { deadLetterView, redriveMessage, type TopicRecord } from './dead-letter.js';

const topics = { auditEvents: 'audit.events.v1', firstRetryTier: 'webhooks.retry.1.v1' };

const poison: TopicRecord = {
  topic: 'audit.events.v1.projector.dlq',
  partition: 0,
  offset: '3',
  timestamp: Date.UTC(2026, 10, 22, 1, 2, 3),
  key: Buffer.from('tenant-a'),
  value: Buffer.from([0xc3, 0x01, 1, 2, 3]),
  headers: {
    'content-kind': 'audit',
    'dlq.origin.topic': 'audit.events.v1',
    'dlq.origin.partition': '4',
    'dlq.origin.offset': '1207',
    'dlq.stage': 'decode',
    'dlq.error': 'unknown schema fingerprint 0102',
    'dlq.failed_at': '1763773323000',
  },
};

const job: DeliveryJob = {
  endpointId: 'wh_0000abcd',
  tenantId: 'tenant-a',
  eventId: '00000000-0000-4000-8000-000000000001',
  body: Buffer.from('{"id":"00000000-0000-4000-8000-000000000001"}'),
  attempt: 6,
  dueAt: 123,
  notBefore: null,
  replay: false,
  origin: { topic: 'audit.events.v1', partition: 2, offset: '88' },
  lastError: 'status 503',
};
const terminal: TopicRecord = {
  topic: 'webhooks.deliveries.dlq',
  partition: 0,
  offset: '9',
  timestamp: Date.UTC(2026, 10, 22),
  key: Buffer.from(job.endpointId),
  value: job.body,
  headers: jobHeaders(job),
};

describe('deadLetterView', () => {
  it("shows a projector dead letter's origin, stage, error and tenant", () => {
    expect(deadLetterView('projector', poison)).toEqual({
      queue: 'projector',
      partition: 0,
      offset: '3',
      failed_at: '2026-11-22T01:02:03.000Z',
      origin: { topic: 'audit.events.v1', partition: 4, offset: '1207' },
      error: 'unknown schema fingerprint 0102',
      tenant_id: 'tenant-a',
      stage: 'decode',
      endpoint_id: null,
      event_id: null,
      attempts: null,
    });
  });

  it("shows a terminal delivery's origin, endpoint, event, attempts and last error", () => {
    expect(deadLetterView('webhooks', terminal)).toMatchObject({
      origin: { topic: 'audit.events.v1', partition: 2, offset: '88' },
      error: 'status 503',
      tenant_id: 'tenant-a',
      endpoint_id: 'wh_0000abcd',
      event_id: job.eventId,
      attempts: 6,
    });
  });
});

describe('redriveMessage', () => {
  it('sends a projector record back to the audit topic as first written, without the dead-letter headers', () => {
    expect(redriveMessage('projector', poison, topics, { now: 0 })).toEqual({
      ok: true,
      topic: 'audit.events.v1',
      key: poison.key,
      value: poison.value,
      headers: { 'content-kind': 'audit', 'redriven-from': 'audit.events.v1.projector.dlq:0:3' },
    });
  });

  it('cannot redrive a projector record whose value was left out, and says where it is', () => {
    const redrive = redriveMessage('projector', { ...poison, value: null }, topics, { now: 0 });
    expect(redrive).toEqual({ ok: false, reason: expect.stringContaining('audit.events.v1:4:1207') });
  });

  it('sends a delivery to the first retry tier, due now, as attempt 1 of a replay, with the same body', () => {
    const redrive = redriveMessage('webhooks', terminal, topics, { now: 5_000 });
    if (!redrive.ok) throw new Error(redrive.reason);
    expect(redrive.topic).toBe('webhooks.retry.1.v1');
    expect(redrive.key).toBe('wh_0000abcd');
    expect(jobFromRecord(redrive.headers, redrive.value)).toEqual({
      ...job,
      attempt: 1,
      dueAt: 5_000,
      replay: true,
    });
  });

  it('sends a delivery to a replacement endpoint when asked', () => {
    const redrive = redriveMessage('webhooks', terminal, topics, { now: 1, endpointId: 'wh_0000beef' });
    if (!redrive.ok) throw new Error(redrive.reason);
    expect(redrive.key).toBe('wh_0000beef');
    expect(jobFromRecord(redrive.headers, redrive.value)?.endpointId).toBe('wh_0000beef');
  });

  it('refuses a record that is not a delivery', () => {
    expect(redriveMessage('webhooks', { ...terminal, headers: {} }, topics, { now: 1 })).toMatchObject({
      ok: false,
    });
  });
});
