import { sleep } from './deadline.js';

export interface BackoffOptions {
  firstDelayMs: number;
  maxDelayMs: number;
  /** Asked after each failure: true gives up, throwing that failure. */
  stopping?: (err: unknown) => boolean;
  /** Told of each failure (attempts count from 0) and of the wait before the next try. */
  failed?: (err: unknown, attempt: number, delayMs: number) => void;
}

/**
 * Runs `step` until it succeeds, waiting after each failure twice as long as after the one before, at most
 * `maxDelayMs`: the one backoff loop of every service (start-up steps, the projector's writes, the dispatcher's
 * state). Its own code, not a library's: p-retry, the usual choice, needs Node 22.
 */
export async function retryWithBackoff<T>(
  step: (attempt: number) => Promise<T>,
  options: BackoffOptions,
): Promise<T> {
  for (let attempt = 0, delayMs = options.firstDelayMs; ; attempt++) {
    try {
      return await step(attempt);
    } catch (err) {
      if (options.stopping?.(err)) throw err;
      options.failed?.(err, attempt, delayMs);
      await sleep(delayMs);
      delayMs = Math.min(delayMs * 2, options.maxDelayMs);
    }
  }
}
