import type { AuditEventRecord } from '@audit/shared/contract';
import type { ProjectionTables } from '@audit/shared/projection';
import { idKey } from './project-batch.js';

/** One generation of the projection, as the write path sees it. */
export interface EventWriter {
  /**
   * Keys (see idKey) of the given events that are already stored. With `repair`, also those the events table
   * holds but the by-id table lacks (an insert the server died in the middle of: the events table is written
   * before the view fills the by-id table), whose by-id rows it then writes.
   */
  storedKeys(events: readonly AuditEventRecord[], repair?: boolean): Promise<Set<string>>;
  insert(events: readonly AuditEventRecord[]): Promise<void>;
}

export interface EventSink {
  /** The writer of one generation's tables. */
  on(tables: ProjectionTables): EventWriter;
  /** Resolves once no insert of ours (from this process or an earlier owner of a partition) is still running. */
  insertsSettled(): Promise<void>;
}

export interface StoreOutcome {
  inserted: number;
  alreadyStored: number;
  /** Milliseconds spent looking up stored ids and inserting. */
  timings: { lookupMs: number; insertMs: number };
}

/**
 * Idempotent on (tenant_id, event_id): whatever is already stored (a replay, a retry after a crash between insert
 * and commit, a re-sent event) is skipped. Records are keyed by tenant, so one tenant's events are only ever
 * handled by the one consumer that owns the partition; the caller makes sure no earlier insert of the same
 * records is still running when the lookup happens (EventSink.insertsSettled).
 */
export async function storeEvents(
  events: readonly AuditEventRecord[],
  sink: EventWriter,
  now: () => number = () => performance.now(),
  repair = false,
): Promise<StoreOutcome> {
  const t0 = now();
  const stored = await sink.storedKeys(events, repair);
  const fresh = events.filter((e) => !stored.has(idKey(e)));
  const t1 = now();
  if (fresh.length > 0) await sink.insert(fresh);
  return {
    inserted: fresh.length,
    alreadyStored: events.length - fresh.length,
    timings: { lookupMs: Math.round(t1 - t0), insertMs: Math.round(now() - t1) },
  };
}
