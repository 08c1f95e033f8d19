import { CappedMap } from '@audit/shared/platform';
import type pg from 'pg';
import type { RequestClass } from '../domain/rate-limit.js';

export interface TokenResult {
  allowed: boolean;
  remaining: number;
}

/**
 * One token from the key's shared bucket (Postgres function take_rate_token, migration 0002), with two local
 * guards so one key's burst cannot take the connection pool from everyone else:
 * - each process asks for at most one token of a key and class at a time (others of that key queue here);
 * - once a bucket was found empty, the process answers from memory until the next token is due (the refill rate
 *   is fixed, so that moment is exact).
 */
export function postgresRateLimiter(db: Pick<pg.Pool, 'query'>, now: () => number = Date.now) {
  const emptyUntil = new CappedMap<string, { until: number; remaining: number; at: number }>(100_000);
  const queues = new Map<string, Promise<unknown>>();

  const ask = async (prefix: string, cls: RequestClass, capacity: number): Promise<TokenResult> => {
    const { rows } = await db.query<TokenResult>(
      'SELECT allowed, remaining FROM take_rate_token($1, $2, $3, $4)',
      [prefix, cls, capacity, capacity / 60],
    );
    return rows[0]!;
  };

  return async function takeToken(prefix: string, cls: RequestClass, capacity: number): Promise<TokenResult> {
    const bucket = `${prefix}:${cls}`;
    const empty = emptyUntil.get(bucket);
    if (empty && now() < empty.until) {
      return { allowed: false, remaining: empty.remaining + ((now() - empty.at) * capacity) / 60_000 };
    }
    const previous = queues.get(bucket) ?? Promise.resolve();
    const result = previous.then(() => ask(prefix, cls, capacity));
    const settled = result.catch(() => undefined);
    queues.set(bucket, settled);
    void settled.then(() => {
      if (queues.get(bucket) === settled) queues.delete(bucket);
    });
    const token = await result;
    if (token.allowed) emptyUntil.delete(bucket);
    else {
      const at = now();
      emptyUntil.set(bucket, {
        until: at + ((1 - token.remaining) * 60_000) / capacity,
        remaining: token.remaining,
        at,
      });
    }
    return token;
  };
}

export type TakeToken = ReturnType<typeof postgresRateLimiter>;
