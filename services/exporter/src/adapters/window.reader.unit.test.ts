import { describe, expect, it } from 'vitest';
import type { EventRow } from '@audit/shared/contract';
import type { Chunk } from '../domain/chunk-plan.js';
import { readTurns } from '../domain/read-turns.js';
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

// Turns always free: one tenant alone, with turns enough for both its reads.
const free = () => readTurns(2).take('t');

describe('windowReads', () => {
  it('yields every chunk in order, sending the next query before the current rows are taken', async () => {
    const reads = fakeReads();
    const ids: string[] = [];
    for await (const batch of windowReads(reads.openRead, chunks, free))
      ids.push(...batch.map((r) => r.event_id));
    expect(ids).toEqual(['20-a', '20-b', '10-a', '10-b', '0-a', '0-b']);
    expect(reads.log).toEqual(['open 20', 'open 10', 'end 20', 'open 0', 'end 10', 'end 0']);
    expect(reads.maxOpen()).toBe(2);
  });

  it('closes the read sent ahead when the writer gives up', async () => {
    const reads = fakeReads();
    for await (const batch of windowReads(reads.openRead, chunks, free)) {
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
        for await (const batch of windowReads(reads.openRead, chunks, free))
          ids.push(...batch.map((r) => r.event_id));
      })(),
    ).rejects.toThrow('read 10 failed');
    expect(ids).toEqual(['20-a', '20-b']);
  });

  it('reads nothing for a window without chunks', async () => {
    const reads = fakeReads();
    const batches: unknown[] = [];
    for await (const batch of windowReads(reads.openRead, [], free)) batches.push(batch);
    expect(batches).toEqual([]);
    expect(reads.log).toEqual([]);
  });

  it("takes a turn per read and gives it back, so that two tenants' windows take turns", async () => {
    const turns = readTurns(1);
    const reads = fakeReads();
    const order: string[] = [];
    const drain = async (tenant: string) => {
      for await (const batch of windowReads(reads.openRead, chunks, () => turns.take(tenant)))
        order.push(`${tenant} ${batch[0]!.event_id}`);
    };
    await Promise.all([drain('a'), drain('b')]);
    expect(order).toEqual([
      ...['a 20-a', 'a 20-b', 'b 20-a', 'b 20-b', 'a 10-a', 'a 10-b'],
      ...['b 10-a', 'b 10-b', 'a 0-a', 'a 0-b', 'b 0-a', 'b 0-b'],
    ]);
    expect(reads.maxOpen()).toBe(1);
    expect(turns.load()).toEqual({ held: 0, waiting: 0 });
  });

  it('gives the turn back when a read cannot be opened', async () => {
    const turns = readTurns(1);
    const reads = fakeReads(20);
    await expect(
      (async () => {
        for await (const _ of windowReads(reads.openRead, chunks, () => turns.take('a'))) void _;
      })(),
    ).rejects.toThrow('read 20 failed');
    expect(turns.load()).toEqual({ held: 0, waiting: 0 });
  });
});
