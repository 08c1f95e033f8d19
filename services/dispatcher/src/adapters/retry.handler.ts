import { type Logger } from '@audit/shared/platform';
import { jobFromRecord, type DeliveryJob } from '@audit/shared/webhooks';
import { startDelivery, type StartDeliveryDeps } from './start-delivery.js';
import type { MessageContext } from './tracked-consumer.js';

export interface RetryDeps extends StartDeliveryDeps {
  clock: () => number;
  logger: Logger;
  /** Sends a retry the receiver asked to hold back on to its next hop (deliverer.ts `hopper`). */
  hop: (job: DeliveryJob & { notBefore: number }) => Promise<unknown>;
}

/**
 * A retry tier's record: not before its due time; then attempted, or, when the receiver asked to wait longer
 * (Retry-After), sent on to its next hop. The partition is paused until then (never a sleep inside the
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
    const { notBefore } = job;
    if (notBefore !== null && notBefore > deps.clock()) {
      // Not finished when the hand-off gives up (the process is stopping): the record is then read again.
      void deps.hop({ ...job, notBefore }).then(finish, () => undefined);
      return true;
    }
    startDelivery(deps, job, finish);
    return true;
  };
}
