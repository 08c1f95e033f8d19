import type { PagePosition } from './cursor.js';
import { filterKey, type EventFilters } from './event-filters.js';

/** Events per millisecond of a full page, and the span it covered: from its oldest timestamp up to where it began. */
interface Span {
  density: number;
  from: number;
  to: number;
}

/**
 * How dense the pages last read were, per tenant and filters (a bounded set of them): the first page's, which the
 * next first page reuses, and the latest page's, which the page right below it reuses. A density is reused only
 * next to where it was measured: a tenant's events can be far denser in one month, or hour, than in another.
 */
export function pageDensities(max = 10_000) {
  const seen = new Map<string, { first?: number; last?: Span }>();
  return {
    /** The density to expect just below `top` for the page after `position` (null: the first page). */
    guess(tenantId: string, filters: EventFilters, position: PagePosition | null, top: number) {
      const entry = seen.get(filterKey(tenantId, filters));
      if (!position) return entry?.first;
      const last = entry?.last;
      return last && top > last.from && top <= last.to ? last.density : undefined;
    },

    /** A full page of `count` events, the oldest at `from`, read below `to`. */
    learn(
      tenantId: string,
      filters: EventFilters,
      position: PagePosition | null,
      count: number,
      from: number,
      to: number,
    ) {
      const key = filterKey(tenantId, filters);
      const entry = seen.get(key) ?? {};
      entry.last = { density: count / (to - from), from, to };
      if (!position) entry.first = entry.last.density;
      seen.delete(key);
      if (seen.size >= max) seen.delete(seen.keys().next().value!);
      seen.set(key, entry);
    },
  };
}
