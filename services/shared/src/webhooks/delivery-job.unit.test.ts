import { describe, expect, it } from 'vitest';
import { jobFromRecord, jobHeaders, type DeliveryJob } from './delivery-job.js';

const job: DeliveryJob = {
  endpointId: 'wh_0123abcd',
  tenantId: 't1',
  eventId: '00000000-0000-4000-8000-000000000001',
  body: Buffer.from('{"id":"x"}'),
  attempt: 3,
  dueAt: 1_790_000_000_123,
  notBefore: null,
  replay: false,
  origin: { topic: 'audit.events.v1', partition: 4, offset: '9007199254740993' },
  lastError: 'status 500',
};

const asRecord = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Buffer.from(v)]));

describe('delivery job headers', () => {
  it('round-trips through record headers, 64-bit offsets included', () => {
    expect(jobFromRecord(asRecord(jobHeaders(job)), job.body)).toEqual(job);
    const fresh = { ...job, lastError: null };
    expect(jobFromRecord(asRecord(jobHeaders(fresh)), job.body)).toEqual(fresh);
  });

  it('refuses a record without its state or without a payload', () => {
    expect(jobFromRecord(undefined, job.body)).toBeNull();
    expect(jobFromRecord(asRecord({ ...jobHeaders(job), 'wh-attempt': 'x' }), job.body)).toBeNull();
    expect(jobFromRecord(asRecord(jobHeaders(job)), null)).toBeNull();
  });
});
