import type pg from 'pg';
import { type CheckpointKey } from '@audit/shared/integrity';
import { loggableError, sleep, type Logger } from '@audit/shared/platform';
import { checkpointLag, signDue, TREES_PER_PASS, type CheckpointSettings } from './checkpointer.js';
import type { CheckpointMeter } from './checkpoint.metrics.js';

const POLL_MS = 1000;

export interface CheckpointLoopOptions {
  pool: pg.Pool;
  /** The active key, null when none is; throws when its private half is not here. */
  signingKey: () => Promise<CheckpointKey | null>;
  settings: CheckpointSettings;
  meter: CheckpointMeter;
  now: () => number;
  stopping: () => boolean;
  logger: Logger;
}

/**
 * Signs what is due once a second, until stopping. A problem (no active key, its file missing, Postgres down) is
 * logged when it begins and when it ends, not every second; the trees keep growing meanwhile, and the leaves wait
 * for the next checkpoint, which covers them all.
 */
export async function runCheckpointLoop(opts: CheckpointLoopOptions): Promise<void> {
  let problem: string | null = null;
  const report = (now: string | null, err?: unknown) => {
    if (now === problem) return;
    if (now) opts.logger.warn({ err: err ? loggableError(err) : undefined }, now);
    else opts.logger.info({ was: problem }, 'checkpoints are being signed again');
    problem = now;
  };
  while (!opts.stopping()) {
    try {
      const key = await opts.signingKey();
      opts.meter.keyReady(key !== null);
      if (!key) {
        report('no signing key is active: no checkpoint is made until "ops integrity keys create"');
      } else {
        for (let signed = TREES_PER_PASS; signed === TREES_PER_PASS && !opts.stopping();) {
          signed = await signDue(opts.pool, key, opts.settings, opts.now);
          opts.meter.signed(signed);
        }
        report(null);
      }
      opts.meter.lag(await checkpointLag(opts.pool, opts.now()));
    } catch (err) {
      opts.meter.keyReady(false);
      report(`checkpoints cannot be signed: ${(err as Error).message}`, err);
    }
    await sleep(POLL_MS);
  }
}
