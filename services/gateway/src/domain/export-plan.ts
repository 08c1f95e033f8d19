import { type EventFilters } from '@audit/shared';
import type { PagePosition } from './cursor.js';

export const EXPORT_CAP = 10_000;

export interface ExportPlan {
  /** Events the response will carry (absent concurrent ingestion). */
  count: number;
  truncated: boolean;
  /** Timestamp of the oldest event carried when truncated: the response holds every event of that millisecond. */
  cutTs: number | null;
  /**
   * Timestamp of the newest planned event: later arrivals stay out (this export's own audit event too, unless an
   * event was ingested with a timestamp ahead of it; ingest accepts up to 5 minutes ahead).
   */
  newestTs: number | null;
}

/**
 * Where a capped export ends, from the first `cap + 1` keys in list order. Clients continue with `until` = the
 * last returned timestamp (exclusive), so a truncated export must never end inside a millisecond: a run of
 * events sharing the timestamp at the cut is left whole for the next call. Only when more than `cap` events share
 * one millisecond can that not hold; then the first `cap` are returned (docs/contract.md "Export").
 */
export function planExport(keys: readonly PagePosition[], cap = EXPORT_CAP): ExportPlan {
  const newestTs = keys[0]?.ts ?? null;
  if (keys.length <= cap) return { count: keys.length, truncated: false, cutTs: null, newestTs };
  const lastTs = keys[cap - 1]!.ts;
  if (keys[cap]!.ts !== lastTs) return { count: cap, truncated: true, cutTs: lastTs, newestTs };
  const runStart = keys.findIndex((k) => k.ts === lastTs);
  if (runStart === 0) return { count: cap, truncated: true, cutTs: lastTs, newestTs };
  return { count: runStart, truncated: true, cutTs: keys[runStart - 1]!.ts, newestTs };
}

/** The rows an export streams: the plan's range, from its newest event down to the cut's whole millisecond. */
export function exportRange(filters: EventFilters, plan: ExportPlan): EventFilters | null {
  if (plan.newestTs === null) return null;
  return {
    ...filters,
    until: Math.min(filters.until ?? Infinity, plan.newestTs + 1),
    ...(plan.cutTs === null ? {} : { since: Math.max(filters.since ?? 0, plan.cutTs) }),
  };
}
