import { describe, expect, it } from 'vitest';
import { auditEventCodec, type AuditEventRecord } from '@audit/shared';
import { sampleRecord } from '@audit/shared/test-support';
import type { ConsumedRecord, DeadLetter } from './consumed-record.js';
import { idKey } from './project-batch.js';
import { storeBatch } from './store-batch.js';

const codec = auditEventCodec();

function fakePorts() {
  const stored = new Map<string, AuditEventRecord>();
  const letters: DeadLetter[] = [];
  return {
    stored,
    letters,
    ports: {
      codec,
      sink: {
        storedKeys: async (events: readonly AuditEventRecord[]) =>
          new Set(events.map(idKey).filter((k) => stored.has(k))),
        insert: async (events: readonly AuditEventRecord[]) => events.forEach((e) => stored.set(idKey(e), e)),
      },
      deadLetters: { publish: async (ls: readonly DeadLetter[]) => void letters.push(...ls) },
    },
  };
}

const asRecords = (events: AuditEventRecord[]): ConsumedRecord[] =>
  events.map((e, i) => ({
    topic: 't',
    partition: 0,
    offset: String(i),
    key: null,
    value: codec.encode(e),
    headers: {},
  }));

describe('storeBatch', () => {
  it('stores each event once however often its records are handled', async () => {
    const { ports, stored } = fakePorts();
    const events = [sampleRecord(), sampleRecord(), sampleRecord()];
    expect(await storeBatch(asRecords(events), ports)).toMatchObject({
      inserted: 3,
      alreadyStored: 0,
      deadLettered: 0,
    });
    const replay = [...events, sampleRecord(), { ...events[0]!, timestamp: 1 }];
    expect(await storeBatch(asRecords(replay), ports)).toMatchObject({
      inserted: 1,
      alreadyStored: 3,
      deadLettered: 0,
    });
    expect(stored.size).toBe(4);
    expect(stored.get(idKey(events[0]!))).toEqual(events[0]);
  });

  it('sends poison records to the dead letters and still stores the rest', async () => {
    const { ports, stored, letters } = fakePorts();
    const good = sampleRecord();
    const records = [
      { topic: 't', partition: 2, offset: '9', key: null, value: Buffer.from('junk'), headers: {} },
      ...asRecords([good]),
    ];
    expect(await storeBatch(records, ports)).toMatchObject({
      inserted: 1,
      alreadyStored: 0,
      deadLettered: 1,
    });
    expect(letters.map((l) => l.record.offset)).toEqual(['9']);
    expect([...stored.values()]).toEqual([good]);
  });
});
