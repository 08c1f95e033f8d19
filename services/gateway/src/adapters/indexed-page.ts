import { sqlIdentifier, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import { BUCKET_MS, type LiveGeneration, type IndexSlice } from '@audit/shared/projection';
import type { PageGuess } from '../domain/page-density.js';
import { readPlan } from '../domain/read-plan.js';
import { nextWindow, type BucketCount } from '../domain/window-plan.js';
import { overBudget, pageQuery, rows } from './page-query.js';

const WINDOW_GROWTH = 4;
// A window sized from a known density holds the page with this much room.
const DENSITY_MARGIN = 1.5;
// What a window guessed from a density may cost at most: the rows of its key ranges' granules, which count whole
// granules of every part it touches (1,024 rows in the events table, 256 in the index), so a good guess on
// unmerged parts stays well under it while a density measured across a gap (one that would read months of
// events) is refused before it reads.
const guessBudget = (want: number) => 16 * want + 65_536;
// What reading the rest of a page's range whole may cost at most: about what the summary read and a window would
// cost together (a granule of the summary in each of its parts, and the window's granules).
const wholeBudget = (want: number) => 16 * want + 8_192;
export const sliceCondition = (s: IndexSlice) =>
  'value' in s
    ? `dim = ${sqlValue(s.dim)} AND value = ${sqlValue(s.value)}`
    : `dim = ${sqlValue(s.dim)} AND value >= ${sqlValue(s.from)} AND value < ${sqlValue(s.to)}`;

/**
 * The summary's counts per hour in [lo, hi), in one round trip: of every event (first; not for a single slice)
 * and of each slice.
 */
async function readSummary(
  client: ClickHouseClient,
  t: LiveGeneration,
  tenantId: string,
  slices: readonly IndexSlice[],
  lo: number,
  hi: number,
): Promise<BucketCount[][]> {
  // Every event's counts serve a read without a slice, and weigh several slices against each other.
  const conditions = [...(slices.length === 1 ? [] : ['dim = 0']), ...slices.map(sliceCondition)];
  // One row per slice, its hours and counts packed in one text: a long history has tens of thousands of hours,
  // and a row each would cost more to send and parse than to count.
  const found = await rows<{ slice: number; counts: string }>(
    client,
    conditions
      .map(
        (condition, i) => `SELECT toUInt8(${i}) AS slice,
          arrayStringConcat(groupArray(concat(toString(bucket), ':', toString(n))), ',') AS counts
        FROM (SELECT bucket, sum(n) AS n FROM ${sqlIdentifier(t.buckets)}
          WHERE tenant_id = ${sqlValue(tenantId)} AND ${condition}
            AND bucket >= ${sqlValue(Math.floor(lo / BUCKET_MS))}
            AND bucket <= ${sqlValue(Math.floor((hi - 1) / BUCKET_MS))}
          GROUP BY bucket)`,
      )
      .join(' UNION ALL '),
  );
  const counts = conditions.map((): BucketCount[] => []);
  for (const r of found) {
    if (r.counts === '') continue;
    for (const pair of r.counts.split(',')) {
      const [bucket, n] = pair.split(':');
      counts[Number(r.slice)]!.push({ start: Number(bucket) * BUCKET_MS, count: Number(n) });
    }
  }
  return counts;
}

/**
 * The newest `want` events in [lo, top) through the filter index (docs/architecture.md, "Read path"): the
 * summary says which slice of it holds the fewest of the filters' events and where they lie, and each window is
 * sized from its counts to hold what the page still lacks, so a page reads about what it returns, at any depth
 * and over any gap: stretches the summary counts empty are never read, and a page ends when it counts nothing
 * more. The summary is exact (the projector repairs it with the index after a torn insert).
 */
export async function indexedPage<T>(
  client: ClickHouseClient,
  t: LiveGeneration,
  read: { tenantId: string; slices: readonly IndexSlice[]; conditions: readonly string[] },
  columns: string,
  want: number,
  lo: number,
  top: number,
  guess?: PageGuess,
): Promise<{ rows: T[]; slice?: number }> {
  if (top <= lo) return { rows: [] };
  const sliceOf = (slice: IndexSlice | null) =>
    slice
      ? pageQuery(client, t.index, [sliceCondition(slice), ...read.conditions])
      : pageQuery(client, t.events, read.conditions);
  const sliceIndex = (slice: IndexSlice | null) => (slice ? read.slices.indexOf(slice) : undefined);
  const found: T[] = [];
  let hi = top;
  // Where the density of the page above is known (and of several slices, the one it was read from), one window
  // sized from it usually holds the page: the next page of a paging, or the next chunk of an export, in one query. A first
  // page reads no lower than the previous first page's oldest event, so a tenant that went quiet months ago
  // reads its newest page, not months of density. The window reads down from where the page starts, so it skips
  // nothing and needs no count. A guess too wide for its budget is refused unread, and the summary decides.
  const from =
    guess && 'density' in guess
      ? Math.max(lo, guess.floor ?? lo, hi - Math.ceil((DENSITY_MARGIN * want) / guess.density))
      : undefined;
  // Of several slices, the one the summary chose for the page above.
  const guessed =
    read.slices.length <= 1
      ? (read.slices[0] ?? null)
      : guess?.slice === undefined
        ? undefined
        : read.slices[guess.slice];
  if (from !== undefined && from < hi && guessed !== undefined) {
    const rows = await sliceOf(guessed)<T>(columns, from, hi, want, {
      maxRows: guessBudget(want),
    }).catch(overBudget);
    if (rows) {
      found.push(...rows);
      hi = from;
      if (found.length === want || hi <= lo) return { rows: found, slice: sliceIndex(guessed) };
    }
  }
  // Where the previous first page was short, its range read whole completes the page in one query if the slice's
  // key ranges still hold few rows: the page of a rare value, of a value matching nothing, of a small tenant. It
  // reads the slice's own granules and not the summary (a granule in each of its parts). More rows are refused
  // unread and the summary decides; a refusal costs about as much as the summary read (18.16 answers it as an
  // exception), which is why only a short page earns the attempt.
  if (guess && 'whole' in guess && guessed !== undefined) {
    const rows = await sliceOf(guessed)<T>(columns, lo, hi, want, {
      maxRows: wholeBudget(want),
    }).catch(overBudget);
    if (rows) return { rows, slice: sliceIndex(guessed) };
  }
  // Read afresh: it also says where nothing is, which only a current count may say.
  const counts = await readSummary(client, t, read.tenantId, read.slices, lo, hi);
  const [all, ...bySlice] = read.slices.length === 1 ? [[], ...counts] : counts;
  const plan = readPlan(
    { slice: null, buckets: all! },
    read.slices.map((slice, i) => ({ slice, buckets: bySlice[i]! })),
  );
  const select = sliceOf(plan.slice);
  // Events bunched inside an hour can leave a window short of its estimate: each further window aims at four
  // times what is still missing, so a page takes a few queries at most, never one per empty slice of an hour.
  for (let aim = 1; found.length < want && hi > lo; aim *= WINDOW_GROWTH) {
    const missing = want - found.length;
    const window = nextWindow(plan.buckets, hi, lo, missing * aim, plan.share);
    if (!window) break;
    found.push(...(await select<T>(columns, window.from, window.to, missing)));
    hi = window.from;
  }
  return { rows: found, slice: sliceIndex(plan.slice) };
}
