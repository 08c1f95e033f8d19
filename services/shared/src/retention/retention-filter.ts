import type { AuditEventRecord } from '../contract/audit-event/audit-event.js';
import { isLeftOut, type PurgeHistory } from './purge-history.js';
import type { PurgeRepository } from './purge.repository.js';

/** The events of a batch to store or deliver: those a purge removes are left out (docs/retention.md "The purge"). */
export type RetentionFilter = (events: readonly AuditEventRecord[]) => Promise<AuditEventRecord[]>;

/**
 * Leaves out every event its tenant's purges remove, deciding as each run did (docs/retention.md "What a replay
 * stores"), so that neither a redelivery nor a replay stores or delivers again what a purge removed. The purges
 * are read from Postgres at most every `refreshMs` (a purge waits longer than that before it deletes); a failed
 * read throws, and the caller tries again: storing or delivering without them could bring purged events back.
 */
export function retentionFilter(
  purges: Pick<PurgeRepository, 'histories'>,
  refreshMs: number,
  clock: () => number,
): RetentionFilter {
  let histories = new Map<string, PurgeHistory>();
  let readAt = -Infinity;
  return async (events) => {
    if (clock() - readAt >= refreshMs) {
      histories = await purges.histories();
      readAt = clock();
    }
    if (histories.size === 0) return [...events];
    return events.filter((e) => {
      const history = histories.get(e.tenant_id);
      return history === undefined || !isLeftOut(history, e);
    });
  };
}
