import { CappedMap } from '@audit/shared/platform';
import { filterKey, type EventFilters } from '@audit/shared/projection';
import type { PagePosition } from './cursor.js';

/** A full page: `count` events, the oldest at `from`, read below `to` (from `slice`, where there was a choice). */
export interface ReadPage {
  count: number;
  from: number;
  to: number;
  slice?: number;
}

/** A first page shorter than a page: its range held no more events (a rare value, a small tenant). */
export interface ShortPage {
  short: true;
  slice?: number;
}

/**
 * Where a page's rows are expected: at `density` events per millisecond below where it starts, and for a first
 * page, at or above `floor` (the oldest timestamp of the previous first page, which held a full page); or, where
 * the previous first page was short, in few enough rows to read its range whole (`whole`). `slice`: of the
 * filters' slices of the filter index, the one the page was read from.
 */
export type PageGuess = { density: number; floor?: number; slice?: number } | { whole: true; slice?: number };

/**
 * How dense the pages last read were, per tenant and filters (a bounded set of them): the first page's, which the
 * next first page reuses, and the latest page's, which the page right below it reuses. A density is reused only
 * next to where it was measured: a tenant's events can be far denser in one month, or hour, than in another.
 */
export function pageDensities(max = 10_000) {
  const seen = new CappedMap<string, { first?: ReadPage | ShortPage; last?: ReadPage }>(max);
  const density = (page: ReadPage) => page.count / (page.to - page.from);
  return {
    /** The density to expect just below `top` for the page after `position` (null: the first page). */
    guess(
      tenantId: string,
      filters: EventFilters,
      position: PagePosition | null,
      top: number,
    ): PageGuess | undefined {
      const entry = seen.get(filterKey(tenantId, filters));
      const first = entry?.first;
      if (!position)
        return (
          first &&
          ('short' in first
            ? { whole: true, slice: first.slice }
            : { density: density(first), floor: first.from, slice: first.slice })
        );
      const last = entry?.last;
      return last && top > last.from && top <= last.to
        ? { density: density(last), slice: last.slice }
        : undefined;
    },

    /** A short page says something of a first page only: a later page ends a paging. */
    learn(
      tenantId: string,
      filters: EventFilters,
      position: PagePosition | null,
      page: ReadPage | ShortPage,
    ) {
      const short = 'short' in page;
      if (short && position) return;
      const key = filterKey(tenantId, filters);
      const entry = seen.get(key) ?? {};
      if (!short) entry.last = page;
      if (!position) entry.first = page;
      seen.set(key, entry);
    },
  };
}
