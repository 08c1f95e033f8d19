import type { AuditEventRecord } from '@audit/shared/contract';
import { isPurged, type PurgeRepository, type PurgeScope } from '@audit/shared/retention';

/** The events of a batch to store: those a purge removes are left out (docs/retention.md "The purge"). */
export type RetentionFilter = (events: readonly AuditEventRecord[]) => Promise<AuditEventRecord[]>;

/**
 * Leaves out every event under its tenant's purge horizon that no hold in force covers, so that neither a
 * redelivery nor a replay stores again what a purge removed. The horizons and holds are read from Postgres at most
 * every `refreshMs` (a purge waits longer than that before it deletes); a failed read throws, and the write is
 * tried again, as when ClickHouse fails: storing without knowing the horizons could bring purged events back.
 */
export function retentionFilter(
  purges: Pick<PurgeRepository, 'scopes'>,
  refreshMs: number,
  clock: () => number,
): RetentionFilter {
  let scopes = new Map<string, PurgeScope>();
  let readAt = -Infinity;
  return async (events) => {
    if (clock() - readAt >= refreshMs) {
      scopes = await purges.scopes();
      readAt = clock();
    }
    if (scopes.size === 0) return [...events];
    return events.filter((e) => {
      const scope = scopes.get(e.tenant_id);
      return scope === undefined || !isPurged(scope, e);
    });
  };
}
