import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FlushBuffer, type FlushBufferOptions } from './flush-buffer.js';

function recordingBuffer(options: Omit<FlushBufferOptions<number>, 'flush'>) {
  const writes: number[][] = [];
  const buffer = new FlushBuffer<number>({ ...options, flush: async (xs) => void writes.push(xs) });
  return { buffer, writes };
}

describe('FlushBuffer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('flushes once the size threshold is reached, in arrival order', async () => {
    const { buffer, writes } = recordingBuffer({
      maxItems: 3,
      maxDelayMs: 1000,
      idleMs: 1000,
      minIntervalMs: 0,
    });
    const first = buffer.add([1, 2]);
    expect(writes).toEqual([]);
    const second = buffer.add([3]);
    await Promise.all([first, second]);
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it('flushes once arrivals pause for idleMs', async () => {
    const { buffer, writes } = recordingBuffer({
      maxItems: 100,
      maxDelayMs: 1000,
      idleMs: 10,
      minIntervalMs: 0,
    });
    const first = buffer.add([1]);
    await vi.advanceTimersByTimeAsync(9);
    const second = buffer.add([2]);
    await vi.advanceTimersByTimeAsync(9);
    expect(writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all([first, second]);
    expect(writes).toEqual([[1, 2]]);
  });

  it('spaces idle flushes by minIntervalMs', async () => {
    const { buffer, writes } = recordingBuffer({
      maxItems: 100,
      maxDelayMs: 1000,
      idleMs: 5,
      minIntervalMs: 100,
    });
    await vi.advanceTimersByTimeAsync(200);
    const first = buffer.add([1]);
    await vi.advanceTimersByTimeAsync(5);
    await first;
    const second = buffer.add([2]);
    await vi.advanceTimersByTimeAsync(50);
    expect(writes).toEqual([[1]]);
    await vi.advanceTimersByTimeAsync(49);
    expect(writes).toEqual([[1]]);
    await vi.advanceTimersByTimeAsync(1);
    await second;
    expect(writes).toEqual([[1], [2]]);
  });

  it('flushes by maxDelayMs when arrivals never pause', async () => {
    const { buffer, writes } = recordingBuffer({
      maxItems: 1000,
      maxDelayMs: 50,
      idleMs: 10,
      minIntervalMs: 0,
    });
    const adds: Promise<void>[] = [];
    for (let i = 0; i < 6; i++) {
      adds.push(buffer.add([i]));
      await vi.advanceTimersByTimeAsync(9);
    }
    expect(writes).toEqual([[0, 1, 2, 3, 4, 5]]);
    await Promise.all(adds);
  });

  it('rejects every caller whose items were in a failed write, and starts afresh after', async () => {
    let fail = true;
    const buffer = new FlushBuffer<number>({
      maxItems: 2,
      maxDelayMs: 10,
      idleMs: 10,
      minIntervalMs: 0,
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

  it('flushNow writes what waits without waiting for a timer', async () => {
    const { buffer, writes } = recordingBuffer({
      maxItems: 100,
      maxDelayMs: 60_000,
      idleMs: 60_000,
      minIntervalMs: 0,
    });
    const done = buffer.add([7]);
    buffer.flushNow();
    await done;
    expect(writes).toEqual([[7]]);
  });
});
