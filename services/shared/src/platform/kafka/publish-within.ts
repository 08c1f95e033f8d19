import { withDeadline } from '../deadline.js';
import { AppError, DependencyUnavailableError } from '../errors.js';

/**
 * A publish a client waits for (an ingest batch, the gateway's own audit events): settled within `ms`, or a 503
 * the client may retry, so that Kafka slow or down is never a hung request nor an unexplained 500.
 */
export function publishWithin<T>(publish: Promise<T>, ms: number): Promise<T> {
  return withDeadline(publish, ms, () => new DependencyUnavailableError('kafka')).catch((err: unknown) => {
    throw err instanceof AppError ? err : new DependencyUnavailableError('kafka', 5, { cause: err });
  });
}
