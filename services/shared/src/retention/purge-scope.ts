import type { AuditEventRecord } from '../contract/audit-event/audit-event.js';
import { sqlValue } from '../platform/clickhouse/sql-quote.js';
import { FILTERS } from '../projection/event-filters.js';
import { BUCKET_MS } from '../projection/filter-index.js';
import type { HoldScope } from './legal-hold.js';
import type { RetentionPolicy } from './retention-policy.js';

const DAY_MS = 86_400_000;

/** How often the projector and the dispatcher read the purges and holds at most (their filter, docs/retention.md). */
export const HORIZON_REFRESH_MS = 1000;
/**
 * How long a purge waits between marking its decisions and deleting: the projector's refresh, and a write it
 * filtered just before. A write that lands later still is deleted by the purge's next round.
 */
export const HORIZON_SETTLE_MS = 3 * HORIZON_REFRESH_MS;

/**
 * The time before which a tenant's events are purged under `policy` at `now`: `max_days` back, on the hour before
 * it, so that a purge takes whole hours of the summary (whose buckets are hours). Null while the policy has no
 * maximum. Never later than `min_days` back, since the maximum is never below the minimum.
 */
export function purgeHorizon(policy: Pick<RetentionPolicy, 'max_days'>, now: number): number | null {
  if (policy.max_days === null) return null;
  const horizon = now - policy.max_days * DAY_MS;
  return Math.max(0, Math.floor(horizon / BUCKET_MS) * BUCKET_MS);
}

type HeldFields = Pick<AuditEventRecord, 'timestamp' | 'user_id' | 'resource_id' | 'patient_id'>;

/** Whether a hold covers the event: it matches every field the hold sets, as the list's filters match. */
export function holdCovers(scope: HoldScope, e: HeldFields): boolean {
  return (
    (scope.user_id === undefined || e.user_id === scope.user_id) &&
    (scope.resource_id === undefined || e.resource_id === scope.resource_id) &&
    (scope.patient_id === undefined || e.patient_id === scope.patient_id) &&
    (scope.since === undefined || e.timestamp >= scope.since) &&
    (scope.until === undefined || e.timestamp < scope.until)
  );
}

/** The same as a condition on the events table's columns (which the filter index has too): the list's own. */
export function holdCondition(scope: HoldScope): string {
  const parts = [
    scope.user_id === undefined ? null : FILTERS.user_id.sql(scope.user_id),
    scope.resource_id === undefined ? null : FILTERS.resource_id.sql(scope.resource_id),
    scope.patient_id === undefined ? null : FILTERS.patient_id.sql(scope.patient_id),
    scope.since === undefined ? null : FILTERS.since.sql(scope.since),
    scope.until === undefined ? null : FILTERS.until.sql(scope.until),
  ].filter((p) => p !== null);
  return parts.length === 0 ? '1' : parts.map((p) => `(${p})`).join(' AND ');
}

/** A tenant's horizon and the scopes of its holds in force: what decides which of its events are purged. */
export interface PurgeScope {
  purgedBefore: number;
  holds: readonly HoldScope[];
}

/** The same as a condition on the events table's (or the filter index's) columns, for one tenant. */
export function purgeCondition(tenant: string, scope: PurgeScope): string {
  const held = scope.holds.map((hold) => `(${holdCondition(hold)})`);
  return `tenant_id = ${sqlValue(tenant)} AND ts < ${sqlValue(scope.purgedBefore)}${
    held.length === 0 ? '' : ` AND NOT (${held.join(' OR ')})`
  }`;
}
