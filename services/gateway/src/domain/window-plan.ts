import { BUCKET_MS } from '@audit/shared/projection';

/** How many matching events a bucket of the summary counts: those with `start <= ts < start + BUCKET_MS`. */
export interface BucketCount {
  start: number;
  count: number;
}

// A window is sized to hold this much more than the page wants: within a bucket events are assumed evenly
// spread, and a burst inside the hour would otherwise cost a second query.
const MARGIN = 1.25;

/**
 * The next window to read below `hi` (exclusive) and above `lo`, for about `want` matching events, from the
 * summary's counts (any order) and the share of the counted events expected to match the other filters too:
 * it ends where the newest counted events below `hi` end, so that stretches the summary counts empty are never
 * read, and starts where enough events are counted, taking events to be evenly spread inside a bucket. Null when
 * the summary counts nothing below `hi`: the read is over.
 */
export function nextWindow(
  buckets: readonly BucketCount[],
  hi: number,
  lo: number,
  want: number,
  share = 1,
): { from: number; to: number } | null {
  const below = buckets
    .filter((b) => b.start < hi && b.start + BUCKET_MS > lo && b.count > 0)
    .sort((x, y) => y.start - x.start);
  if (below.length === 0) return null;
  const to = Math.min(hi, below[0]!.start + BUCKET_MS);
  const target = want * MARGIN;
  let expected = 0;
  for (const b of below) {
    const top = Math.min(to, b.start + BUCKET_MS);
    const bottom = Math.max(lo, b.start);
    const perMs = (b.count * share) / BUCKET_MS;
    const inside = perMs * (top - bottom);
    if (expected + inside >= target) {
      const from = Math.floor(top - (target - expected) / perMs);
      return { from: Math.max(bottom, Math.min(from, to - 1)), to };
    }
    expected += inside;
  }
  return { from: lo, to };
}
