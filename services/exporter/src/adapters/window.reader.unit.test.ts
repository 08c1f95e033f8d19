import { describe, expect, it } from 'vitest';
import type { EventRow } from '@audit/shared/contract';
import type { Chunk } from '../domain/chunk-plan.js';
import { windowReads, type ChunkRead } from './window.reader.js';

const chunks: Chunk[] = [
  { from: 20, to: 30, rows: 2 },
  { from: 10, to: 20, rows: 2 },
  { from: 0, to: 10, rows: 1 },
];

/** A fake reader that records which reads were opened, closed and finished, and in which order. */
function fakeReads(failAt?: number) {
  const log: string[] = [];
  let open = 0;
  let maxOpen = 0;
  const openRead = async (from: number): Promise<ChunkRead<EventRow[]>> => {
    log.push(`open ${from}`);
    if (from === failAt) throw new Error(`read ${from} failed`);
    open++;
    maxOpen = Math.max(maxOpen, open);
    let done = false;
    const finish = (how: string) => {
      if (done) return;
      done = true;
      open--;
      log.push(`${how} ${from}`);
    };
    return {
      async *items() {
        try {
          yield [{ event_id: `${from}-a` } as EventRow];
          yield [{ event_id: `${from}-b` } as EventRow];
        } finally {
          finish('end');
        }
      },
      close: () => finish('close'),
    };
  };
  return { log, openRead, maxOpen: () => maxOpen };
}

describe('windowReads', () => {
  it('yields every chunk in order, sending the next query before the current rows are taken', async () => {
    const reads = fakeReads();
    const ids: string[] = [];
    for await (const batch of windowReads(reads.openRead, chunks)) ids.push(...batch.map((r) => r.event_id));
    expect(ids).toEqual(['20-a', '20-b', '10-a', '10-b', '0-a', '0-b']);
    expect(reads.log).toEqual(['open 20', 'open 10', 'end 20', 'open 0', 'end 10', 'end 0']);
    expect(reads.maxOpen()).toBe(2);
  });

  it('closes the read sent ahead when the writer gives up', async () => {
    const reads = fakeReads();
    for await (const batch of windowReads(reads.openRead, chunks)) {
      if (batch[0]!.event_id === '20-a') break;
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads.log).toEqual(['open 20', 'open 10', 'end 20', 'close 10']);
  });

  it("rejects with a read's failure when its rows are due, not before", async () => {
    const reads = fakeReads(10);
    const ids: string[] = [];
    await expect(
      (async () => {
        for await (const batch of windowReads(reads.openRead, chunks))
          ids.push(...batch.map((r) => r.event_id));
      })(),
    ).rejects.toThrow('read 10 failed');
    expect(ids).toEqual(['20-a', '20-b']);
  });

  it('reads nothing for a window without chunks', async () => {
    const reads = fakeReads();
    const batches: unknown[] = [];
    for await (const batch of windowReads(reads.openRead, [])) batches.push(batch);
    expect(batches).toEqual([]);
    expect(reads.log).toEqual([]);
  });
});
