import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { scrapeCache } from './scrape-cache.js';

function setup(read: () => Promise<string>) {
  const time = { now: 0 };
  let calls = 0;
  const cached = scrapeCache(
    () => {
      calls++;
      return read();
    },
    'fallback',
    { ttlMs: 1000, deadlineMs: 50, clock: () => time.now, logger: pino({ level: 'silent' }) },
  );
  return { cached, time, calls: () => calls };
}

describe('scrapeCache', () => {
  it('serves a result again until it is older than the TTL', async () => {
    let n = 0;
    const { cached, time, calls } = setup(async () => `v${++n}`);
    expect(await cached()).toBe('v1');
    time.now = 999;
    expect(await cached()).toBe('v1');
    time.now = 1000;
    expect(await cached()).toBe('v2');
    expect(calls()).toBe(2);
  });

  it('makes one call for concurrent scrapes', async () => {
    const { cached, calls } = setup(async () => 'v');
    expect(await Promise.all([cached(), cached(), cached()])).toEqual(['v', 'v', 'v']);
    expect(calls()).toBe(1);
  });

  it('answers the fallback after the deadline and waits on the same call next time', async () => {
    let answer: (value: string) => void = () => undefined;
    const { cached, calls } = setup(() => new Promise((resolve) => (answer = resolve)));
    const started = Date.now();
    expect(await cached()).toBe('fallback');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await cached()).toBe('fallback');
    expect(calls()).toBe(1);
    answer('late');
    expect(await cached()).toBe('late');
    expect(calls()).toBe(1);
  });

  it('answers the fallback when the call fails, and tries again on the next scrape', async () => {
    let fail = true;
    const { cached, calls } = setup(async () => {
      if (fail) throw new Error('broker down');
      return 'v';
    });
    expect(await cached()).toBe('fallback');
    fail = false;
    expect(await cached()).toBe('v');
    expect(calls()).toBe(2);
  });
});
