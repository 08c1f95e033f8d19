import { jobFromRecord, type Logger } from '@audit/shared';
import { startDelivery, type StartDeliveryDeps } from './start-delivery.js';
import type { MessageContext } from './tracked-consumer.js';

export interface RetryDeps extends StartDeliveryDeps {
  clock: () => number;
  logger: Logger;
}

/**
 * A retry tier's record: not before its due time. The partition is paused until then (never a sleep inside the
 * handler, which would outlast the session timeout); one tier holds one delay, so records behind are due later
 * give or take the jitter, and none is ever sent early.
 */
export function retryHandler(deps: RetryDeps) {
  return async ({ topic, partition, message, pause, begin }: MessageContext): Promise<boolean> => {
    const job = jobFromRecord(message.headers, message.value);
    if (!job) {
      deps.logger.error(
        { topic, partition, offset: message.offset },
        'retry record without delivery state skipped',
      );
      begin(0);
      return true;
    }
    const wait = job.dueAt - deps.clock();
    if (wait > 0) {
      const resume = pause();
      setTimeout(resume, wait).unref();
      return false;
    }
    const finish = begin(1);
    startDelivery(deps, job, finish);
    return true;
  };
}
