import type { AuditEventRecord } from '@audit/shared';
import type { StoreOutcome } from './store-events.js';

export interface RefusedEvent {
  event: AuditEventRecord;
  /** Why ClickHouse refused it, without the row's content. */
  error: string;
}

export interface StoreOrRefuseDeps {
  /** Stores events idempotently; `afterFailure` once a write of this batch failed (it may have half happened). */
  store(events: readonly AuditEventRecord[], afterFailure: boolean): Promise<StoreOutcome>;
  /** Why the error can never pass for these events, or null when a retry may succeed. */
  permanent(err: unknown): string | null;
}

const sum = (a: StoreOutcome, b: StoreOutcome): StoreOutcome => ({
  inserted: a.inserted + b.inserted,
  alreadyStored: a.alreadyStored + b.alreadyStored,
  timings: {
    lookupMs: a.timings.lookupMs + b.timings.lookupMs,
    insertMs: a.timings.insertMs + b.timings.insertMs,
  },
});

const NOTHING: StoreOutcome = { inserted: 0, alreadyStored: 0, timings: { lookupMs: 0, insertMs: 0 } };

/**
 * Stores a batch; when ClickHouse refuses it for good, halves it until the events it refuses are alone, stores
 * the rest and returns those for the dead-letter topic (docs/operations.md "Dead letters"). One refused event
 * must not stall its partition for every tenant on it. A transient error is thrown for the caller to retry.
 */
export async function storeOrRefuse(
  events: readonly AuditEventRecord[],
  deps: StoreOrRefuseDeps,
  afterFailure = false,
): Promise<{ outcome: StoreOutcome; refused: RefusedEvent[] }> {
  if (events.length === 0) return { outcome: NOTHING, refused: [] };
  try {
    return { outcome: await deps.store(events, afterFailure), refused: [] };
  } catch (err) {
    const error = deps.permanent(err);
    if (error === null) throw err;
    if (events.length === 1) return { outcome: NOTHING, refused: [{ event: events[0]!, error }] };
    const half = Math.ceil(events.length / 2);
    const first = await storeOrRefuse(events.slice(0, half), deps, true);
    const second = await storeOrRefuse(events.slice(half), deps, true);
    return { outcome: sum(first.outcome, second.outcome), refused: [...first.refused, ...second.refused] };
  }
}
