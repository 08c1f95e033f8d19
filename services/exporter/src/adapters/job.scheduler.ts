import { type Claim } from '@audit/shared/export-jobs';
import { loggableError, type Logger } from '@audit/shared/platform';
import { StoppingError } from './job.runner.js';

export interface JobSchedulerDeps {
  /** Jobs this exporter runs at once. */
  slots: number;
  /** How often an exporter with a free slot looks for a job without being woken. */
  pollMs: number;
  claim: () => Promise<Claim | null>;
  run: (claim: Claim, signal: AbortSignal) => Promise<void>;
  logger: Logger;
}

/**
 * Takes jobs from the queue in Postgres while this exporter has a free slot (docs/exports.md "Fair share"): when
 * woken (a job was requested, or one ended here) and every `pollMs`. Stopping aborts the attempts under way, which
 * let go of their jobs for the next exporter to take up at once.
 */
export function jobScheduler(deps: JobSchedulerDeps) {
  const running = new Set<Promise<void>>();
  const stop = new AbortController();
  let filling: Promise<void> | null = null;
  let again = false;

  async function fill(): Promise<void> {
    do {
      again = false;
      while (running.size < deps.slots && !stop.signal.aborted) {
        const claim = await deps.claim();
        if (!claim) break;
        start(claim);
      }
    } while (again && !stop.signal.aborted);
  }

  function start(claim: Claim): void {
    const job = 'job' in claim ? claim.job : claim.exhausted;
    const run = deps
      .run(claim, stop.signal)
      .catch((err: unknown) => {
        // Left to its lease: once it runs out, the job is taken up again, here or elsewhere.
        deps.logger.warn({ err: loggableError(err), job_id: job.jobId }, 'export job attempt ended in error');
      })
      .finally(() => {
        running.delete(run);
        wake();
      });
    running.add(run);
  }

  function wake(): void {
    if (stop.signal.aborted) return;
    if (filling) {
      again = true;
      return;
    }
    filling = fill()
      .catch((err: unknown) => {
        deps.logger.warn({ err: loggableError(err) }, 'export job queue not read; trying again shortly');
      })
      .finally(() => (filling = null));
  }

  const poll = setInterval(wake, deps.pollMs);
  return {
    wake,
    /** Resolves once every attempt under way has let go of its job. */
    async stop(): Promise<void> {
      clearInterval(poll);
      stop.abort(new StoppingError('exporter: stopped'));
      await filling;
      await Promise.all(running);
    },
  };
}

export type JobScheduler = ReturnType<typeof jobScheduler>;
