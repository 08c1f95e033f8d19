import { loggableError, retryWithBackoff, type Logger } from '@audit/shared/platform';

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
  try {
    return await retryWithBackoff(write, {
      firstDelayMs: 250,
      maxDelayMs: 5000,
      stopping,
      failed: (err, _attempt, delayMs) =>
        log().warn({ err: loggableError(err), retry_in_ms: delayMs }, `${what} failed; retrying`),
    });
  } catch (err) {
    throw new StoppingError(`${what}: stopped while retrying`, { cause: err });
  }
}
