import type pg from 'pg';
import type { RequestClass } from '../domain/rate-limit.js';

/** One token from the key's shared bucket (Postgres function take_rate_token, migration 0002). */
export function postgresRateLimiter(db: Pick<pg.Pool, 'query'>) {
  return async (prefix: string, cls: RequestClass, capacity: number) => {
    const { rows } = await db.query<{ allowed: boolean; remaining: number }>(
      'SELECT allowed, remaining FROM take_rate_token($1, $2, $3, $4)',
      [prefix, cls, capacity, capacity / 60],
    );
    return rows[0]!;
  };
}

export type TakeToken = ReturnType<typeof postgresRateLimiter>;
