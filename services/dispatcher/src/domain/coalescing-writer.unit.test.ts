import { afterEach, describe, expect, it, vi } from 'vitest';
import { CoalescingWriter } from './coalescing-writer.js';

const gate = () => {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
};

describe('CoalescingWriter', () => {
  it('writes one batch at a time; what arrives meanwhile goes in the next one, up to maxBatch', async () => {
    const writes: number[][] = [];
    const first = gate();
    const writer = new CoalescingWriter<number, number>(
      async (items) => {
        writes.push(items);
        if (writes.length === 1) await first.promise;
        return items.map((n) => n * 10);
      },
      { maxBatch: 3 },
    );
    const settled: number[] = [];
    const add = (n: number) =>
      writer.add(n).then((result) => {
        expect(result).toBe(n * 10);
        settled.push(n);
      });
    const all = [add(1), add(2)];
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual([[1, 2]]);
    all.push(add(3), add(4), add(5), add(6));
    await new Promise((r) => setImmediate(r));
    // Nothing else is written, and nothing settles, while the first write is in flight.
    expect(writes).toHaveLength(1);
    expect(settled).toEqual([]);
    first.open();
    await Promise.all(all);
    expect(writes).toEqual([[1, 2], [3, 4, 5], [6]]);
    expect(settled).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('rejects every item of a failed write, and writes later items afresh', async () => {
    let fail = true;
    const writes: string[][] = [];
    const writer = new CoalescingWriter<string>(
      async (items) => {
        writes.push(items);
        if (fail) throw new Error('database down');
        return items.map(() => undefined);
      },
      { maxBatch: 10 },
    );
    const results = await Promise.allSettled([writer.add('a'), writer.add('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await writer.add('a');
    expect(writes).toEqual([['a', 'b'], ['a']]);
  });

  it('never settles an item before its own write is done', async () => {
    const g = gate();
    const writer = new CoalescingWriter<number>(async () => [await g.promise], { maxBatch: 10 });
    let done = false;
    const p = writer.add(1).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    g.open();
    await p;
    expect(done).toBe(true);
  });

  it('writes the items of a write refused for one bad item one by one, so only that one fails', async () => {
    const writes: string[][] = [];
    const writer = new CoalescingWriter<string>(
      async (items) => {
        writes.push(items);
        if (items.includes('bad')) throw Object.assign(new Error('refused'), { code: 'bad value' });
        return items.map(() => undefined);
      },
      { maxBatch: 10, isolate: (err) => (err as { code?: string }).code === 'bad value' },
    );
    const results = await Promise.allSettled(['a', 'bad', 'c'].map((item) => writer.add(item)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(writes).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  describe('with a linger', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    const lingering = (maxBatch: number, gateFirst?: Promise<void>) => {
      vi.useFakeTimers();
      const writes: number[][] = [];
      const writer = new CoalescingWriter<number>(
        async (items) => {
          writes.push(items);
          if (writes.length === 1 && gateFirst) await gateFirst;
          return items.map(() => undefined);
        },
        { maxBatch, lingerMs: 20, now: () => Date.now() },
      );
      return { writes, writer };
    };

    it('lets the first item wait for others up to the linger, then writes them together', async () => {
      const { writes, writer } = lingering(100);
      const all = [writer.add(1)];
      await vi.advanceTimersByTimeAsync(15);
      all.push(writer.add(2));
      expect(writes).toEqual([]);
      await vi.advanceTimersByTimeAsync(4);
      all.push(writer.add(3));
      expect(writes).toEqual([]);
      // The linger is counted from the oldest item, not restarted by later ones.
      await vi.advanceTimersByTimeAsync(1);
      expect(writes).toEqual([[1, 2, 3]]);
      await Promise.all(all);
    });

    it('writes at once when a full batch waits', async () => {
      const { writes, writer } = lingering(3);
      const all = [1, 2, 3].map((n) => writer.add(n));
      await vi.advanceTimersByTimeAsync(0);
      expect(writes).toEqual([[1, 2, 3]]);
      all.push(writer.add(4));
      await vi.advanceTimersByTimeAsync(19);
      expect(writes).toEqual([[1, 2, 3]]);
      await vi.advanceTimersByTimeAsync(1);
      expect(writes).toEqual([[1, 2, 3], [4]]);
      await Promise.all(all);
    });

    it('writes items that waited out the linger behind a write in flight as soon as it ends', async () => {
      const first = gate();
      const { writes, writer } = lingering(100, first.promise);
      const all = [writer.add(1)];
      await vi.advanceTimersByTimeAsync(20);
      all.push(writer.add(2), writer.add(3));
      await vi.advanceTimersByTimeAsync(50);
      expect(writes).toEqual([[1]]);
      first.open();
      await vi.advanceTimersByTimeAsync(0);
      expect(writes).toEqual([[1], [2, 3]]);
      await Promise.all(all);
    });
  });
});
