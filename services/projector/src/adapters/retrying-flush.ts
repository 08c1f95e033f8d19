import { sleep, type Logger } from '@audit/shared';
import type { ConsumedRecord } from '../domain/consumed-record.js';
import { storeBatch, type StorePorts } from '../domain/store-batch.js';

const MAX_BACKOFF_MS = 10_000;

/**
 * A sink outage must not skip records: the write is retried with backoff until it succeeds, or until the
 * service stops, in which case nothing is committed and the records are read again after restart.
 */
export function retryingFlush(ports: StorePorts, logger: Logger, isStopping: () => boolean) {
  return async (records: ConsumedRecord[]) => {
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      try {
        const outcome = await storeBatch(records, ports);
        logger.debug({ ...outcome, records: records.length, ms: Math.round(performance.now() - started) }, 'flushed');
        if (outcome.deadLettered > 0) logger.warn({ count: outcome.deadLettered }, 'records dead-lettered');
        return;
      } catch (err) {
        if (isStopping()) throw err;
        const backoffMs = Math.min(MAX_BACKOFF_MS, 200 * 2 ** attempt);
        logger.warn({ err, attempt, backoffMs }, 'flush failed; retrying');
        await sleep(backoffMs);
      }
    }
  };
}
