/**
 * How an export job reads its window (docs/exports.md "Window"): in consecutive time ranges of at most a chunk's
 * rows, newest first, each of which ClickHouse sorts on its own. No ClickHouse version we support reads a table in
 * its sort order, so one query over a whole window would sort all of it at once.
 */

/** The rows counted in [from, to): epoch ms, `to` exclusive. */
export interface Bucket {
  from: number;
  to: number;
  rows: number;
}

/** One read: the rows in [from, to), in list order. Chunks come newest first and tile the window. */
export type Chunk = Bucket;

/** Rows per `intDiv(ts, width)`, as ClickHouse counts them. */
export interface BucketCount {
  bucket: number;
  rows: number;
}

/** Counts the window's rows in [from, to) per `width` milliseconds. */
export type CountRows = (from: number, to: number, width: number) => Promise<BucketCount[]>;

/** The widths a window is counted in, coarse to fine: an hour, a second, a millisecond. */
export const WIDTHS = [3_600_000, 1_000, 1] as const;

/** The counted buckets, clamped to [from, to), newest first. Empty buckets are not counted at all. */
export function bucketsOf(counts: readonly BucketCount[], width: number, from: number, to: number): Bucket[] {
  return counts
    .filter((c) => c.rows > 0)
    .map((c) => ({
      from: Math.max(from, c.bucket * width),
      to: Math.min(to, (c.bucket + 1) * width),
      rows: c.rows,
    }))
    .sort((a, b) => b.from - a.from);
}

/**
 * The window's non-empty buckets, newest first: counted per hour, and each bucket with more than `chunkRows`
 * rows counted again per second, then per millisecond. Only a single millisecond can stay larger than a chunk.
 */
export async function countWindow(
  count: CountRows,
  since: number,
  until: number,
  chunkRows: number,
): Promise<Bucket[]> {
  let buckets = bucketsOf(await count(since, until, WIDTHS[0]), WIDTHS[0], since, until);
  for (const width of WIDTHS.slice(1)) {
    const finer: Bucket[] = [];
    for (const b of buckets) {
      if (b.rows > chunkRows && b.to - b.from > 1) {
        finer.push(...bucketsOf(await count(b.from, b.to, width), width, b.from, b.to));
      } else {
        finer.push(b);
      }
    }
    buckets = finer;
  }
  return buckets;
}

/**
 * Cuts [since, until) into chunks of at most `chunkRows` rows (a bucket larger than that is a chunk of its own),
 * newest first. The chunks tile the window: the first ends at `until`, each ends where the previous one begins,
 * the last begins at `since`; the stretches without rows go to the chunk below them. No rows, no chunks.
 */
export function planChunks(
  buckets: readonly Bucket[],
  since: number,
  until: number,
  chunkRows: number,
): Chunk[] {
  const chunks: Chunk[] = [];
  let top = until;
  let rows = 0;
  let bottom = until;
  for (const b of buckets) {
    if (rows > 0 && rows + b.rows > chunkRows) {
      chunks.push({ from: bottom, to: top, rows });
      top = bottom;
      rows = 0;
    }
    rows += b.rows;
    bottom = b.from;
  }
  if (rows > 0) chunks.push({ from: since, to: top, rows });
  return chunks;
}
