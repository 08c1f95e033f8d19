import type { BucketCount } from './window-plan.js';

/** What the summary says of one slice of the filter index (or, for `slice` null, of every event). */
export interface SliceCounts<S> {
  slice: S | null;
  buckets: BucketCount[];
}

export interface ReadPlan<S> {
  /** The slice to read (null: the events table), the fewest events of all that the filters select. */
  slice: S | null;
  buckets: BucketCount[];
  /** The share of the slice's events expected to match the other filters too (taken to be independent). */
  share: number;
}

const total = (buckets: readonly BucketCount[]) => buckets.reduce((sum, b) => sum + b.count, 0);

/**
 * Chooses where a read goes from the summary's counts in its time range: the smallest of the slices its
 * filters select (the events table when it has none), so that it reads about the events it returns.
 */
export function readPlan<S>(all: SliceCounts<S>, slices: readonly SliceCounts<S>[]): ReadPlan<S> {
  if (slices.length === 0) return { slice: null, buckets: all.buckets, share: 1 };
  const everything = total(all.buckets);
  const totals = slices.map((s) => total(s.buckets));
  const best = totals.indexOf(Math.min(...totals));
  const share = totals.reduce(
    (product, n, i) => (i === best || everything === 0 ? product : product * Math.min(1, n / everything)),
    1,
  );
  return { slice: slices[best]!.slice, buckets: slices[best]!.buckets, share };
}
