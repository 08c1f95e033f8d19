import { sleep, type Logger } from '@audit/shared';
import type { ConsumedRecord } from '../domain/consumed-record.js';
import { storeBatch, type StorePorts } from '../domain/store-batch.js';

const MAX_BACKOFF_MS = 10_000;
// A few failures are an outage riding out; more look like a stuck partition an operator must see.
const ESCALATE_AFTER_ATTEMPTS = 5;

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
        logger.debug(
          { ...outcome, records: records.length, ms: Math.round(performance.now() - started) },
          'flushed',
        );
        if (outcome.deadLettered > 0) logger.warn({ count: outcome.deadLettered }, 'records dead-lettered');
        return;
      } catch (err) {
        if (isStopping()) throw err;
        const backoffMs = Math.min(MAX_BACKOFF_MS, 200 * 2 ** attempt);
        const level = attempt < ESCALATE_AFTER_ATTEMPTS ? 'warn' : 'error';
        logger[level]({ err, attempt, backoffMs }, 'flush failed; partition held until it succeeds');
        await sleep(backoffMs);
      }
    }
  };
}
