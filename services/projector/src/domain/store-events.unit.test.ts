import { describe, expect, it } from 'vitest';
import type { AuditEventRecord } from '@audit/shared/contract';
import { sampleRecord } from '@audit/shared/test-support';
import { idKey } from './project-batch.js';
import { storeEvents } from './store-events.js';

function memorySink() {
  const stored = new Map<string, AuditEventRecord>();
  return {
    stored,
    sink: {
      storedKeys: async (events: readonly AuditEventRecord[]) =>
        new Set(events.map(idKey).filter((k) => stored.has(k))),
      insert: async (events: readonly AuditEventRecord[]) => events.forEach((e) => stored.set(idKey(e), e)),
    },
  };
}

describe('storeEvents', () => {
  it('stores each event once however often it is handled, keeping the first version', async () => {
    const { sink, stored } = memorySink();
    const events = [sampleRecord(), sampleRecord(), sampleRecord()];
    expect(await storeEvents(events, sink)).toMatchObject({ inserted: 3, alreadyStored: 0 });
    const replay = [...events, sampleRecord(), { ...events[0]!, timestamp: 1 }];
    expect(await storeEvents(replay, sink)).toMatchObject({ inserted: 1, alreadyStored: 4 });
    expect(stored.size).toBe(4);
    expect(stored.get(idKey(events[0]!))).toEqual(events[0]);
  });

  it('does not insert when everything is already stored', async () => {
    const { sink } = memorySink();
    const events = [sampleRecord()];
    await storeEvents(events, sink);
    let inserts = 0;
    await storeEvents(events, { ...sink, insert: async () => void inserts++ });
    expect(inserts).toBe(0);
  });
});
