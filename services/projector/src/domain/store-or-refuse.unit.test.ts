import { describe, expect, it } from 'vitest';
import { sampleRecord } from '@audit/shared/test-support';
import type { AuditEventRecord } from '@audit/shared/contract';
import { storeOrRefuse, SystemicRefusalError } from './store-or-refuse.js';

const events = Array.from({ length: 8 }, (_, i) =>
  sampleRecord({ resource_id: i === 5 ? 'poison' : `r-${i}` }),
);
const refuses = (some: readonly AuditEventRecord[]) => some.some((e) => e.resource_id === 'poison');

describe('storeOrRefuse', () => {
  it('halves a refused batch until the refused event is alone, and stores every other', async () => {
    const stored: string[] = [];
    const afterFailure: boolean[] = [];
    const result = await storeOrRefuse(events, {
      store: async (some, after) => {
        afterFailure.push(after);
        if (refuses(some)) throw new Error('refused');
        stored.push(...some.map((e) => e.resource_id));
        return { inserted: some.length, alreadyStored: 0, timings: { lookupMs: 0, insertMs: 0 } };
      },
      permanent: () => 'code 131',
    });
    expect(result.refused).toEqual([{ event: events[5], error: 'code 131' }]);
    expect(stored.sort()).toEqual(['r-0', 'r-1', 'r-2', 'r-3', 'r-4', 'r-6', 'r-7']);
    expect(result.outcome.inserted).toBe(7);
    // Every write after the first failed one may find that failure's half-written rows.
    expect(afterFailure[0]).toBe(false);
    expect(afterFailure.slice(1).every(Boolean)).toBe(true);
  });

  it('holds a batch whose events are refused alone as well: the table is at fault, not the data', async () => {
    const stores: number[] = [];
    const held = storeOrRefuse(events, {
      store: async (some) => {
        stores.push(some.length);
        throw new Error('refused');
      },
      permanent: () => 'code 131',
    });
    await expect(held).rejects.toBeInstanceOf(SystemicRefusalError);
    expect(stores).toEqual([8, 1, 1]);
  });

  it('throws an error a retry may get past, without splitting', async () => {
    let calls = 0;
    const failing = storeOrRefuse(events, {
      store: async () => {
        calls += 1;
        throw new Error('ECONNRESET');
      },
      permanent: () => null,
    });
    await expect(failing).rejects.toThrow('ECONNRESET');
    expect(calls).toBe(1);
  });
});
