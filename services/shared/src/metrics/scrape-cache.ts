import { withDeadline } from '../deadline.js';
import { loggableError, type Logger } from '../logger.js';

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
  let last: { at: number; value: T } | undefined;
  let inFlight: Promise<T> | undefined;
  return async (): Promise<T> => {
    if (last && opts.clock() - last.at < opts.ttlMs) return last.value;
    inFlight ??= read()
      .then((value) => {
        last = { at: opts.clock(), value };
        return value;
      })
      .finally(() => {
        inFlight = undefined;
      });
    try {
      return await withDeadline(
        inFlight,
        opts.deadlineMs,
        () => new Error(`no answer within ${opts.deadlineMs} ms`),
      );
    } catch (err) {
      opts.logger.warn({ err: loggableError(err) }, 'metrics source failed; its series are left out');
      return fallback;
    }
  };
}
