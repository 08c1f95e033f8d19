import { describe, expect, it } from 'vitest';
import type { TopicRecord } from '../platform/kafka/range-reader.js';
import { sampleRecord } from '../test-support/sample-record.js';
import { deliveryPayload } from './delivery-payload.js';
import { replayJob, type ReplayTarget } from './replay-window.js';

const INGESTED = Date.UTC(2026, 10, 21, 10, 0, 1);
const record: TopicRecord = {
  topic: 'audit',
  partition: 3,
  offset: '42',
  timestamp: INGESTED,
  key: null,
  value: null,
  headers: {},
};
const target: ReplayTarget = {
  endpointId: 'wh_0000abcd',
  tenantId: 'tenant-a',
  filter: ['phi.'],
  patients: ['p-1042'],
  since: INGESTED,
  until: INGESTED + 1,
};
const event = (action: string, patient_id: string, ingested_at = INGESTED) =>
  sampleRecord({ action, patient_id, ingested_at });

describe('replayJob', () => {
  it('replays an event of the window that both filters match, as its first delivery was made', () => {
    const matched = event('phi.read', 'p-1042');
    expect(replayJob(matched, record, target, 7)).toEqual({
      endpointId: 'wh_0000abcd',
      tenantId: 'tenant-a',
      eventId: matched.event_id,
      body: deliveryPayload(matched),
      attempt: 1,
      dueAt: 7,
      notBefore: null,
      replay: true,
      origin: { topic: 'audit', partition: 3, offset: '42' },
      lastError: null,
    });
  });

  it("skips another patient's event, one naming none, another action, and what lies outside the window", () => {
    for (const skipped of [
      event('phi.read', 'p-1043'),
      event('phi.read', ''),
      event('admin.user.update', 'p-1042'),
      event('phi.read', 'p-1042', INGESTED - 1),
      event('phi.read', 'p-1042', INGESTED + 1),
    ]) {
      expect(replayJob(skipped, record, target, 7)).toBeNull();
    }
    expect(replayJob(null, record, target, 7)).toBeNull();
  });

  it("replays every patient's events, and those naming none, when the patient filter is empty", () => {
    const open = { ...target, patients: [] };
    expect(replayJob(event('phi.read', 'p-1043'), record, open, 7)).not.toBeNull();
    expect(replayJob(event('phi.read', ''), record, open, 7)).not.toBeNull();
  });
});
