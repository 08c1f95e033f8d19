import {
  PurgeBusyError,
  purgeFailure,
  type LastPurge,
  type PurgeCandidate,
  type PurgeReport,
} from '@audit/shared/retention';
import { loggableError, sleep, type Logger } from '@audit/shared/platform';
import { purgeDue, type PurgeSchedule } from '../domain/purge-due.js';
import type { CheckOutcome, PurgeMeter } from './purge.metrics.js';

// The loop looks at `stopping` this often while it waits for its next pass.
const STOP_POLL_MS = 1000;

export interface PurgeLoopOptions {
  candidates: () => Promise<PurgeCandidate[]>;
  /**
   * The tenant's scheduled purge (`purgeTenant` with `scheduled`), given how to tell whether it is still due from
   * its last run as it stands under the tenant's lock.
   */
  purge: (tenant: string, due: (last: LastPurge | null) => boolean) => Promise<PurgeReport>;
  schedule: PurgeSchedule & { checkMs: number };
  meter: PurgeMeter;
  now: () => number;
  stopping: () => boolean;
  logger: Logger;
}

/** One tenant's check: its purge, and what came of it. */
async function check(opts: PurgeLoopOptions, tenant: string): Promise<CheckOutcome> {
  const log = opts.logger.child({ tenant_id: tenant });
  try {
    const report = await opts.purge(tenant, (last) =>
      purgeDue({ tenant_id: tenant, last }, opts.schedule, opts.now(), undefined),
    );
    if (report.purge_id === null) return 'nothing';
    log.info(
      {
        purge_id: report.purge_id,
        purged: report.purged,
        kept: report.kept,
        export_files: report.export_files,
        purged_before: report.purged_before,
      },
      'retention purge done',
    );
    return 'purged';
  } catch (err) {
    if (err instanceof PurgeBusyError) {
      log.debug('another purge or retention change of the tenant is under way: checked again next pass');
      return 'busy';
    }
    // A ClickHouse server's message could quote a hold's values: loggableError leaves it out.
    log.warn({ reason: purgeFailure(err), err: loggableError(err) }, 'retention purge failed');
    return 'failed';
  }
}

/**
 * Purges every tenant whose purge is due, one after the other, then waits `checkMs` and looks again, until
 * stopping (docs/retention.md "The schedule"). A tenant whose check found nothing to remove is left alone for
 * `everyMs`, and one whose purge failed, for `retryMs` (a failure a run recorded is weighed by its record too).
 */
export async function runPurgeLoop(opts: PurgeLoopOptions): Promise<void> {
  const quietUntil = new Map<string, number>();
  let unreadable = false;
  while (!opts.stopping()) {
    try {
      const candidates = await opts.candidates();
      if (unreadable) opts.logger.info('the tenants due for a purge can be read again');
      unreadable = false;
      for (const candidate of candidates) {
        const tenant = candidate.tenant_id;
        if (opts.stopping()) break;
        if (!purgeDue(candidate, opts.schedule, opts.now(), quietUntil.get(tenant))) continue;
        const outcome = await check(opts, tenant);
        opts.meter.checked(outcome);
        if (outcome === 'nothing') quietUntil.set(tenant, opts.now() + opts.schedule.everyMs);
        else if (outcome === 'failed') quietUntil.set(tenant, opts.now() + opts.schedule.retryMs);
        else quietUntil.delete(tenant);
      }
      if (!opts.stopping()) opts.meter.passed(opts.now());
    } catch (err) {
      if (!unreadable) {
        opts.logger.warn({ err: loggableError(err) }, 'the tenants due for a purge cannot be read');
      }
      unreadable = true;
    }
    for (let waited = 0; waited < opts.schedule.checkMs && !opts.stopping(); waited += STOP_POLL_MS) {
      await sleep(Math.min(STOP_POLL_MS, opts.schedule.checkMs - waited));
    }
  }
}
