import type { AuditEventRecord } from '../contract/audit-event/audit-event.js';
import type { HoldScope } from './legal-hold.js';
import { holdCovers } from './purge-scope.js';

/** A purge run that began deleting: from when, and the horizon it deleted under. */
export interface PurgeMark {
  deletingSince: number;
  purgedBefore: number;
}

/** A legal hold of the tenant, released or not, with when it was in force. */
export interface HoldSpan {
  scope: HoldScope;
  createdAt: number;
  releasedAt: number | null;
}

/**
 * A tenant's purges as the projector and the verifier weigh them: its horizon (null before any purge), the runs
 * that began deleting, and every hold it had.
 */
export interface PurgeHistory {
  purgedBefore: number | null;
  runs: readonly PurgeMark[];
  holds: readonly HoldSpan[];
}

type Decided = Pick<AuditEventRecord, 'timestamp' | 'user_id' | 'resource_id' | 'patient_id' | 'ingested_at'>;

const inForce = (hold: HoldSpan, at: number) =>
  hold.createdAt <= at && (hold.releasedAt === null || hold.releasedAt > at);

/**
 * Whether the tenant's retention leaves the event out, deciding as each run did (docs/retention.md "What a replay
 * stores"): a run removed the events under its horizon that no hold in force when it began deleting covered, and
 * once it had, the projector leaves out what arrives under that horizon with no hold in force then covering it.
 * So each run weighs the holds at its own time, or at the event's arrival (ingest's time) when that came after:
 * a hold made after a run keeps nothing the run removed, and a replay stores none of it again.
 */
export const isLeftOut = (history: PurgeHistory, e: Decided): boolean =>
  history.runs.some((run) => {
    if (e.timestamp >= run.purgedBefore) return false;
    const at = Math.max(run.deletingSince, e.ingested_at);
    return !history.holds.some((hold) => inForce(hold, at) && holdCovers(hold.scope, e));
  });

/** A hold that covers every event of a time: narrowed by time alone, or not at all. */
const coversWholeTimes = (scope: HoldScope) =>
  scope.user_id === undefined && scope.resource_id === undefined && scope.patient_id === undefined;

/**
 * Whether a leaf of the tenant's tree that no row is of was purged by its retention, knowing only the leaf's time
 * (the event's other fields went with the row; docs/integrity.md "Verify"). It was, unless no run that began
 * deleting passed its time (a run that failed before it deleted removed nothing), or a hold over every event of
 * that time has been in force, never released, since the first run that passed it began deleting: every run after
 * and every arrival after kept such an event. A hold narrowed to a user, a resource or a patient cannot be weighed
 * without the event's fields, and one released since may have let a later run remove it: either way the leaf
 * counts as purged. A leaf from before leaves had times (migration 0017) is missing.
 */
export function wasPurged(history: PurgeHistory, ts: number | null): boolean {
  const passed = history.runs.filter((run) => ts !== null && ts < run.purgedBefore);
  if (ts === null || passed.length === 0) return false;
  const first = Math.min(...passed.map((run) => run.deletingSince));
  const event = { timestamp: ts, user_id: '', resource_id: '', patient_id: '' };
  return !history.holds.some(
    (hold) =>
      coversWholeTimes(hold.scope) &&
      holdCovers(hold.scope, event) &&
      hold.createdAt <= first &&
      hold.releasedAt === null,
  );
}
