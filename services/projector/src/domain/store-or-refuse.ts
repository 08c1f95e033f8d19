import type { AuditEventRecord } from '@audit/shared/contract';
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
  /** Asked between steps: true gives up (shutting down, partitions lost). */
  stopping?: () => boolean;
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

/** Every event is refused, alone as well: the table, not the data, is at fault; the batch is held, not dropped. */
export class SystemicRefusalError extends Error {
  override name = 'SystemicRefusalError';
}

type Stored = { outcome: StoreOutcome; refused: RefusedEvent[] };

const combine = (parts: Stored[]): Stored => ({
  outcome: parts.map((p) => p.outcome).reduce(sum, NOTHING),
  refused: parts.flatMap((p) => p.refused),
});

/** After a refusal: stores what it can, halving until each refused event is alone. */
async function halving(events: readonly AuditEventRecord[], deps: StoreOrRefuseDeps): Promise<Stored> {
  if (events.length === 0) return { outcome: NOTHING, refused: [] };
  if (deps.stopping?.()) throw new Error('stopping while setting refused events apart');
  try {
    return { outcome: await deps.store(events, true), refused: [] };
  } catch (err) {
    const error = deps.permanent(err);
    if (error === null) throw err;
    if (events.length === 1) return { outcome: NOTHING, refused: [{ event: events[0]!, error }] };
    const half = Math.ceil(events.length / 2);
    return combine([await halving(events.slice(0, half), deps), await halving(events.slice(half), deps)]);
  }
}

/**
 * Stores a batch; when ClickHouse refuses it for good, sets the refused events apart for the dead-letter topic and
 * stores the rest (docs/operations.md "Dead letters"): one refused event must not stall its partition for every
 * tenant on it. First the batch's first and last events are tried alone: if both are refused too, the fault is
 * the table's (a migration gone wrong, a changed column), and SystemicRefusalError holds the batch for the
 * caller's retry instead of dead-lettering all of it. A transient error is thrown for the caller to retry.
 */
export async function storeOrRefuse(
  events: readonly AuditEventRecord[],
  deps: StoreOrRefuseDeps,
): Promise<Stored> {
  if (events.length === 0) return { outcome: NOTHING, refused: [] };
  let error: string | null;
  try {
    return { outcome: await deps.store(events, false), refused: [] };
  } catch (err) {
    error = deps.permanent(err);
    if (error === null) throw err;
  }
  if (events.length === 1) return { outcome: NOTHING, refused: [{ event: events[0]!, error }] };
  const first = await halving(events.slice(0, 1), deps);
  const last = await halving(events.slice(-1), deps);
  if (first.refused.length > 0 && last.refused.length > 0) {
    throw new SystemicRefusalError(`every event tried alone is refused too (${error}); holding the batch`);
  }
  return combine([first, await halving(events.slice(1, -1), deps), last]);
}
