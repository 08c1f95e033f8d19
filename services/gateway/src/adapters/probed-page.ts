import type { PageQuery } from './page-query.js';

// Without a complete filter index (a generation not yet backfilled), a page never asks for "the newest N of the
// tenant" (ClickHouse 18.16 cannot read in sort order): it reads a time window just below where the page starts,
// and widens the window (x4) only while the page is not full.
const FIRST_WINDOW_MS = 60 * 60 * 1000;
const WINDOW_GROWTH = 4;
// An empty window says the events are sparse here (or the history has ended): the next one grows faster, so a
// filter that matches nothing reaches the start of the history in a few queries, not a dozen.
const EMPTY_WINDOW_GROWTH = 16;
// Once the density where a page begins is known, its first window is sized to hold the page with this much room:
// one query then usually answers the page, and reads little more than it returns.
const WINDOW_MARGIN = 1.5;

/**
 * A window of the page's range whose rows of the page come out in one query when the density is known;
 * otherwise, and for what that window did not hold, windows growing from one hour are probed for timestamps
 * only (a narrow column, so an oversized window costs little), and the rows are then read from exactly the
 * span those timestamps cover: the page's events are the newest `want` of the range, so their timestamps are
 * the newest `want` timestamps, ties included.
 */
export async function probedPage<T>(
  select: PageQuery,
  density: number | undefined,
  columns: string,
  want: number,
  lo: number,
  top: number,
): Promise<T[]> {
  const found: T[] = [];
  let hi = top;
  let window = FIRST_WINDOW_MS;
  if (density !== undefined && hi > lo) {
    window = Math.ceil((WINDOW_MARGIN * want) / density);
    const from = Math.max(lo, hi - window);
    found.push(...(await select<T>(columns, from, hi, want)));
    hi = from;
    window *= WINDOW_GROWTH;
  }
  const rest = want - found.length;
  const stamps: number[] = [];
  while (stamps.length < rest && hi > lo) {
    const from = Math.max(lo, hi - window);
    const probed = await select<{ ts: string }>('ts', from, hi, rest - stamps.length, { order: 'ts DESC' });
    stamps.push(...probed.map((r) => Number(r.ts)));
    hi = from;
    window *= probed.length === 0 ? EMPTY_WINDOW_GROWTH : WINDOW_GROWTH;
  }
  if (stamps.length > 0) found.push(...(await select<T>(columns, stamps.at(-1)!, stamps[0]! + 1, rest)));
  return found;
}
