import { sleep } from './deadline.js';
import { loggableError, type Logger } from './logger.js';

export interface WaitOptions {
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Runs a start-up step (a migration, a connection, a topic check) until it succeeds, with backoff: a service
 * started before its dependencies waits for them instead of crashing, and says what it waits for. A signal still
 * stops it (no handler is installed yet, so the default one ends the process).
 */
export async function untilAvailable<T>(
  what: string,
  step: () => Promise<T>,
  logger: Logger,
  options: WaitOptions = {},
): Promise<T> {
  const maxDelayMs = options.maxDelayMs ?? 5000;
  for (
    let attempt = 1, delay = options.firstDelayMs ?? 500;
    ;
    attempt++, delay = Math.min(delay * 2, maxDelayMs)
  ) {
    try {
      const result = await step();
      if (attempt > 1) logger.info({ dependency: what, attempts: attempt }, 'dependency available');
      return result;
    } catch (err) {
      logger.warn(
        { dependency: what, attempt, retry_in_ms: delay, err: loggableError(err) },
        'waiting for a dependency',
      );
      await sleep(delay);
    }
  }
}
