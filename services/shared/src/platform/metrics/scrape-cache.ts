import { withDeadline } from '../deadline.js';
import { loggableError, type Logger } from '../logger.js';
import { recentResult } from '../recent-result.js';

export interface ScrapeCacheOptions {
  /** A result this young is served again: concurrent scrapes make one round of calls, not one each. */
  ttlMs: number;
  /** A scrape waits this long at most; a slow or absent dependency leaves its series out, never the scrape. */
  deadlineMs: number;
  clock: () => number;
  logger: Logger;
}

/**
 * `read` for a scrape: fresh enough, one call in flight at most, and at worst `fallback` after the deadline.
 * A call that outlives the deadline goes on, and the next scrape waits on it instead of starting another.
 */
export function scrapeCache<T>(read: () => Promise<T>, fallback: T, opts: ScrapeCacheOptions) {
  const recent = recentResult(read, opts.ttlMs, opts.clock);
  return async (): Promise<T> => {
    try {
      return await withDeadline(
        recent(),
        opts.deadlineMs,
        () => new Error(`no answer within ${opts.deadlineMs} ms`),
      );
    } catch (err) {
      opts.logger.warn({ err: loggableError(err) }, 'metrics source failed; its series are left out');
      return fallback;
    }
  };
}
