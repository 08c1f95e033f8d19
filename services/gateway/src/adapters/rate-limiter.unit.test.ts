import { describe, expect, it } from 'vitest';
import { postgresRateLimiter } from './rate-limiter.js';

function fakeDb(answers: { allowed: boolean; remaining: number }[]) {
  let inFlight = 0;
  let maxInFlight = 0;
  const calls: unknown[][] = [];
  const db = {
    query: async (_sql: string, params: unknown[]) => {
      calls.push(params);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      return { rows: [answers.shift() ?? { allowed: true, remaining: 10 }] };
    },
  };
  return { db: db as never, calls, maxInFlight: () => maxInFlight };
}

describe('postgresRateLimiter', () => {
  it('asks Postgres for at most one token of a key at a time', async () => {
    const fake = fakeDb([]);
    const take = postgresRateLimiter(fake.db);
    await Promise.all(Array.from({ length: 10 }, () => take('aaaaaaaa', 'read', 60)));
    expect(fake.calls).toHaveLength(10);
    expect(fake.maxInFlight()).toBe(1);
  });

  it('answers an empty bucket from memory until its next token is due', async () => {
    let t = 0;
    const fake = fakeDb([{ allowed: false, remaining: 0.5 }]);
    const take = postgresRateLimiter(fake.db, () => t);
    expect((await take('aaaaaaaa', 'read', 60)).allowed).toBe(false);
    t = 499;
    expect(await take('aaaaaaaa', 'read', 60)).toMatchObject({ allowed: false });
    expect(fake.calls).toHaveLength(1);
    t = 500;
    expect((await take('aaaaaaaa', 'read', 60)).allowed).toBe(true);
    expect(fake.calls).toHaveLength(2);
  });

  it('keeps buckets of different keys and classes apart', async () => {
    const fake = fakeDb([{ allowed: false, remaining: 0 }]);
    const take = postgresRateLimiter(fake.db, () => 0);
    await take('aaaaaaaa', 'read', 60);
    expect((await take('aaaaaaaa', 'write', 60)).allowed).toBe(true);
    expect((await take('bbbbbbbb', 'read', 60)).allowed).toBe(true);
  });
});
