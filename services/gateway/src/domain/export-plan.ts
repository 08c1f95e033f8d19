import { type EventFilters } from '@audit/shared/projection';
import type { PagePosition } from './cursor.js';

export const EXPORT_CAP = 10_000;

/**
 * What one read of an export's rows takes at most: rows, and the bytes of their text fields as stored (a row may
 * carry 64 KiB of details and 1,000 fields accessed of 256 characters). Two reads are held at once, so these
 * bound an export's memory by its rows' size; fewer, larger reads keep an export of small rows to a few round
 * trips, which a sharded cluster makes dear.
 */
export const EXPORT_READ = { rows: 2_000, bytes: 8 * 1024 * 1024 };

/** A planned row's key in list order, with the bytes its text fields take (the reader's `bytes`). */
export interface SizedKey extends PagePosition {
  bytes: number;
}

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

/**
 * The sizes of the reads that stream an export's `count` planned rows: consecutive runs of its keys, each within
 * `limits` (at least one row, however large). Rows ingested into the range meanwhile shift the runs a little:
 * each read still takes its count of rows.
 */
export function readSizes(keys: readonly SizedKey[], count: number, limits = EXPORT_READ): number[] {
  const sizes: number[] = [];
  let rows = 0;
  let bytes = 0;
  for (const key of keys.slice(0, count)) {
    if (rows > 0 && (rows === limits.rows || bytes + key.bytes > limits.bytes)) {
      sizes.push(rows);
      rows = 0;
      bytes = 0;
    }
    rows++;
    bytes += key.bytes;
  }
  if (rows > 0) sizes.push(rows);
  return sizes;
}

/**
 * How many rows the `i`-th read asks for: its run of `sizes`, and one more for the last run and any read after it
 * (rows ingested into the range meanwhile), so that a read that comes back short ends the stream without another
 * that would find nothing.
 */
export function readAsk(sizes: readonly number[], i: number): number {
  const last = sizes.length - 1;
  return i < last ? sizes[i]! : sizes[last]! + 1;
}
