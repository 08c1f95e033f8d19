import type { AuditEventRecord, Codec } from '@audit/shared';
import type { ConsumedRecord, DeadLetter } from './consumed-record.js';
import { idKey, projectBatch } from './project-batch.js';

export interface StorePorts {
  codec: Codec<AuditEventRecord>;
  sink: {
    storedKeys(events: readonly AuditEventRecord[]): Promise<Set<string>>;
    insert(events: readonly AuditEventRecord[]): Promise<void>;
  };
  deadLetters: { publish(letters: readonly DeadLetter[]): Promise<void> };
}

export interface StoreOutcome {
  inserted: number;
  alreadyStored: number;
  deadLettered: number;
  /** Milliseconds spent decoding and validating, looking up stored ids, and inserting. */
  timings: { decodeMs: number; lookupMs: number; insertMs: number };
}

/**
 * Idempotent on (tenant_id, event_id): whatever is already stored (a replay, a retry after a crash between insert
 * and commit, a re-sent event) is skipped. Records are keyed by tenant, so one tenant's events are only ever
 * handled by the one consumer that owns the partition: the check and the insert cannot race each other.
 */
export async function storeBatch(
  records: readonly ConsumedRecord[],
  ports: StorePorts,
  now: () => number = () => performance.now(),
): Promise<StoreOutcome> {
  const t0 = now();
  const { events, deadLetters } = projectBatch(records, ports.codec);
  const t1 = now();
  await ports.deadLetters.publish(deadLetters);
  const stored = await ports.sink.storedKeys(events);
  const fresh = events.filter((e) => !stored.has(idKey(e)));
  const t2 = now();
  if (fresh.length > 0) await ports.sink.insert(fresh);
  return {
    inserted: fresh.length,
    alreadyStored: events.length - fresh.length,
    deadLettered: deadLetters.length,
    timings: {
      decodeMs: Math.round(t1 - t0),
      lookupMs: Math.round(t2 - t1),
      insertMs: Math.round(now() - t2),
    },
  };
}
