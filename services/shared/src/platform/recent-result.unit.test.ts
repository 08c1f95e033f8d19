import { describe, expect, it } from 'vitest';
import { recentResult } from './recent-result.js';

describe('recentResult', () => {
  it('shares one call among concurrent callers and keeps its answer for the ttl', async () => {
    let now = 0;
    let calls = 0;
    const read = recentResult(
      async () => ++calls,
      1000,
      () => now,
    );
    expect(await Promise.all([read(), read(), read()])).toEqual([1, 1, 1]);
    now = 999;
    expect(await read()).toBe(1);
    now = 1000;
    expect(await read()).toBe(2);
    expect(calls).toBe(2);
  });

  it('counts the ttl from when the answer was asked, not from when it came', async () => {
    let now = 0;
    let calls = 0;
    const read = recentResult(
      async () => {
        calls += 1;
        now += 900;
        return calls;
      },
      1000,
      () => now,
    );
    expect(await read()).toBe(1);
    now = 1000;
    expect(await read()).toBe(2);
  });

  it('does not keep a failure', async () => {
    let calls = 0;
    const read = recentResult(async () => {
      calls += 1;
      if (calls === 1) throw new Error('down');
      return 'up';
    }, 1000);
    await expect(read()).rejects.toThrow('down');
    expect(await read()).toBe('up');
  });
});
