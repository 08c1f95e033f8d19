/** How many matching events a bucket of the summary counts: those with `start <= ts < start + BUCKET_MS`. */
export interface BucketCount {
  start: number;
  count: number;
}

/** The summary's bucket: an hour, in epoch milliseconds (docs/architecture.md, "Read path"). */
export const BUCKET_MS = 3_600_000;

// A window is sized to hold this much more than the page wants: within a bucket events are assumed evenly
// spread, and a burst inside the hour would otherwise cost a second query.
const MARGIN = 1.25;

/**
 * Where a read below `hi` (exclusive) should start so that [from, hi) holds about `want` matching events, from
 * the summary's counts (any order) and the share of the counted events expected to match the other filters.
 * Inside a bucket events are taken to be evenly spread; with too few counted events, the window reaches `lo`.
 * The counts only size the window: they never make the reader skip a range, so a count that is off costs a
 * query more or rows more, never an event.
 */
export function windowStart(
  buckets: readonly BucketCount[],
  hi: number,
  lo: number,
  want: number,
  share = 1,
): number {
  const target = want * MARGIN;
  let expected = 0;
  const below = buckets.filter((b) => b.start < hi && b.start + BUCKET_MS > lo && b.count > 0);
  for (const b of [...below].sort((x, y) => y.start - x.start)) {
    const top = Math.min(hi, b.start + BUCKET_MS);
    const bottom = Math.max(lo, b.start);
    const perMs = (b.count * share) / BUCKET_MS;
    const inside = perMs * (top - bottom);
    if (expected + inside >= target) {
      const from = Math.floor(top - (target - expected) / perMs);
      return Math.max(bottom, Math.min(from, hi - 1));
    }
    expected += inside;
  }
  return lo;
}
