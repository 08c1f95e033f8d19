import { loggableError, sleep, type Logger } from '@audit/shared';

export class StoppingError extends Error {
  override name = 'StoppingError';
}

/**
 * Retries a write the delivery cannot do without (its state in Postgres, its hand-off to Kafka) until it
 * succeeds, with backoff; gives up only when the process stops, leaving the record uncommitted for a redo.
 */
export async function persistently<T>(
  what: string,
  write: () => Promise<T>,
  stopping: () => boolean,
  /** Asked for only when there is something to log. */
  log: () => Logger,
): Promise<T> {
  for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
    try {
      return await write();
    } catch (err) {
      if (stopping()) throw new StoppingError(`${what}: stopped while retrying`, { cause: err });
      log().warn({ err: loggableError(err), retry_in_ms: delay }, `${what} failed; retrying`);
      await sleep(delay);
    }
  }
}
