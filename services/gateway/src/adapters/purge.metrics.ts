import { Gauge, scrapeCache, type Logger, type Registry } from '@audit/shared/platform';
import type { PurgeRepository, PurgeTotals } from '@audit/shared/retention';

/**
 * The retention purges' metrics (docs/retention.md "The purge"), computed when scraped from what Postgres records of
 * the runs: over all tenants, never one tenant's figures. Postgres is asked at most once a second, and a scrape
 * waits for it at most a second; while it does not answer, none of them has a series.
 */
export function registerPurgeMetrics(
  registry: Registry,
  purges: Pick<PurgeRepository, 'totals'>,
  logger: Logger,
  clock: () => number,
): void {
  const totals = scrapeCache<PurgeTotals | null>(() => purges.totals(), null, {
    ttlMs: 1000,
    deadlineMs: 1000,
    clock,
    logger,
  });
  new Gauge({
    name: 'retention_purge_runs',
    help: 'Retention purge runs recorded, by status (running, succeeded, failed), over all tenants',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const t = await totals();
      this.reset();
      for (const [status, runs] of Object.entries(t?.runs ?? {})) this.set({ status }, runs);
    },
  });
  /** An unlabelled gauge of the totals, without a series while they are not known. */
  const ofTotals = (name: string, help: string, value: (t: PurgeTotals) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const t = await totals();
        if (t === null) this.remove();
        else this.set(value(t));
      },
    });
  ofTotals(
    'retention_purged_events',
    'Events the retention purges that succeeded removed, over all tenants',
    (t) => t.purged,
  );
  ofTotals(
    'retention_purge_running_seconds',
    'How long the oldest retention purge still running has run (0 when none runs)',
    (t) => (t.oldestRunning === null ? 0 : Math.max(0, (clock() - t.oldestRunning.getTime()) / 1000)),
  );
}
