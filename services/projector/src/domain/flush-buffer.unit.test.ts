import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FlushBuffer } from './flush-buffer.js';

describe('FlushBuffer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('flushes once the size threshold is reached, in arrival order', async () => {
    const writes: number[][] = [];
    const buffer = new FlushBuffer<number>({
      maxItems: 3,
      maxDelayMs: 1000,
      flush: async (xs) => void writes.push(xs),
    });
    const first = buffer.add([1, 2]);
    expect(writes).toEqual([]);
    const second = buffer.add([3]);
    await Promise.all([first, second]);
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it('flushes by time when the threshold is not reached', async () => {
    const writes: number[][] = [];
    const buffer = new FlushBuffer<number>({
      maxItems: 100,
      maxDelayMs: 50,
      flush: async (xs) => void writes.push(xs),
    });
    const done = buffer.add([1]);
    await vi.advanceTimersByTimeAsync(49);
    expect(writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(writes).toEqual([[1]]);
  });

  it('rejects every caller whose items were in a failed write, and starts afresh after', async () => {
    let fail = true;
    const buffer = new FlushBuffer<number>({
      maxItems: 2,
      maxDelayMs: 10,
      flush: async () => {
        if (fail) throw new Error('sink down');
      },
    });
    const a = buffer.add([1]);
    const b = buffer.add([2]);
    await expect(a).rejects.toThrow('sink down');
    await expect(b).rejects.toThrow('sink down');
    fail = false;
    const c = buffer.add([3]);
    await vi.advanceTimersByTimeAsync(10);
    await expect(c).resolves.toBeUndefined();
  });

  it('flushNow writes what waits without waiting for the timer', async () => {
    const writes: number[][] = [];
    const buffer = new FlushBuffer<number>({
      maxItems: 100,
      maxDelayMs: 60_000,
      flush: async (xs) => void writes.push(xs),
    });
    const done = buffer.add([7]);
    buffer.flushNow();
    await done;
    expect(writes).toEqual([[7]]);
  });
});
