import type pg from 'pg';
import { type Clock } from '@audit/shared/contract';
import { loggableError, type Logger } from '@audit/shared/platform';
import {
  webhookReplaysRepository as replays,
  type HeldReplay,
  type ReplayProgress,
} from '@audit/shared/webhooks';
import { StoppingError } from './persistently.js';

/** The replay was taken over (its lease ran out) or deleted with its endpoint: its holder stops. */
export class LostReplayError extends Error {
  override name = 'LostReplayError';
}

// A replay is held this long past its last renewal; renewed every second while its holder lives.
export const LEASE_MS = 30_000;
// Progress is recorded, and the lease renewed, this often.
const RENEW_MS = 1000;

/**
 * The lease on a replay its holder runs (docs/webhooks.md "Replays"): renewed with the progress every second,
 * whatever the read is doing. `check` throws once the holder must stop sending: the process is stopping, the
 * replay was taken over, or the last renewal is older than half the lease (another dispatcher may take it soon).
 */
export function replayLease(deps: {
  pool: pg.Pool;
  held: HeldReplay;
  progress: ReplayProgress;
  stopping: () => boolean;
  clock: Clock;
  logger: Logger;
}) {
  let renewed = Number.NEGATIVE_INFINITY;
  let lost = false;
  let timer: NodeJS.Timeout | undefined;
  let renewing = Promise.resolve();
  const renew = async () => {
    // The lease runs from the query's time: take it before, not after the answer.
    const asked = deps.clock();
    if (await replays.progress(deps.pool, deps.held, LEASE_MS, deps.progress)) renewed = asked;
    else lost = true;
  };
  const check = () => {
    if (deps.stopping()) throw new StoppingError('replay: stopped');
    if (lost || deps.clock() - renewed > LEASE_MS / 2) throw new LostReplayError();
  };
  return {
    check,
    /** Renews once, then every second until `end`. */
    async begin(): Promise<void> {
      await renew();
      check();
      timer = setInterval(() => {
        renewing = renewing.then(renew).catch((err: unknown) => {
          deps.logger.warn({ err: loggableError(err) }, 'webhook replay progress not recorded');
        });
      }, RENEW_MS);
    },
    /** Stops renewing; with `last`, records the progress once more and throws if the replay was lost. */
    async end(last = false): Promise<void> {
      clearInterval(timer);
      await renewing;
      if (!last) return;
      await renew();
      if (lost) throw new LostReplayError();
    },
  };
}
