import { describe, expect, it } from 'vitest';
import { retryWithBackoff } from './retry.js';

describe('retryWithBackoff', () => {
  it('doubles the wait after each failure up to the cap, and returns the first success', async () => {
    const waits: number[] = [];
    const result = await retryWithBackoff(
      async (attempt) => {
        if (attempt < 4) throw new Error(`failure ${attempt}`);
        return attempt;
      },
      { firstDelayMs: 1, maxDelayMs: 5, failed: (_err, _attempt, delayMs) => waits.push(delayMs) },
    );
    expect(result).toBe(4);
    expect(waits).toEqual([1, 2, 4, 5]);
  });

  it('gives up with the failure once stopping says so', async () => {
    let stop = false;
    const run = retryWithBackoff(
      async (attempt) => {
        if (attempt === 2) stop = true;
        throw new Error(`failure ${attempt}`);
      },
      { firstDelayMs: 1, maxDelayMs: 1, stopping: () => stop },
    );
    await expect(run).rejects.toThrow('failure 2');
  });
});
