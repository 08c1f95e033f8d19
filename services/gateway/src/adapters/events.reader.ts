import {
  MAX_FUTURE_SKEW_MS,
  sqlIdentifier,
  sqlValue,
  type ClickHouseClient,
  type ProjectionTables,
} from '@audit/shared';
import { EVENT_COLUMNS, type EventRow } from '../domain/audit-event.view.js';
import type { PagePosition } from '../domain/cursor.js';
import { filterConditions, type EventFilters } from '../domain/event-filters.js';
import { pageDensities } from '../domain/page-density.js';

// ClickHouse 18.16 cannot read in sort order, so a page never asks for "the newest N of the tenant": it reads a
// time window just below where the page starts, and widens the window (x4) only while the page is not full.
const FIRST_WINDOW_MS = 60 * 60 * 1000;
const WINDOW_GROWTH = 4;
// An empty window says the events are sparse here (or the history has ended): the next one grows faster, so a
// filter that matches nothing reaches the start of the history in a few queries, not a dozen.
const EMPTY_WINDOW_GROWTH = 16;
// Once the density where a page begins is known, its first window is sized to hold the page with this much room:
// one query then usually answers the page, and reads little more than it returns.
const WINDOW_MARGIN = 1.5;

async function rows<T>(client: ClickHouseClient, query: string): Promise<T[]> {
  return (await client.query({ query, format: 'JSONEachRow' })).json<T>();
}

/**
 * Reads of the projection's live generation (`tables`, asked once per read: a page or lookup that spans a switch to a
 * rebuilt generation reads one complete generation or the other). Every value is validated by the caller and
 * quoted by sqlValue.
 */
export function eventsReader(client: ClickHouseClient, tables: () => Promise<ProjectionTables>) {
  const densities = pageDensities();
  return {
    /**
     * One event by id within one tenant, without scanning the tenant: the by-id table gives its timestamp, the
     * timestamp and id pin the row in audit_events' primary key (ClickHouse uses the subquery's set as an index
     * condition), in one round trip. LIMIT 1 also hides a duplicate a server crash could leave until ClickHouse
     * merges it away.
     */
    async findEvent(tenantId: string, eventId: string): Promise<EventRow | null> {
      const tenant = sqlValue(tenantId);
      const id = sqlValue(eventId);
      const t = await tables();
      const [row] = await rows<EventRow>(
        client,
        `SELECT ${EVENT_COLUMNS} FROM ${sqlIdentifier(t.events)}
         WHERE tenant_id = ${tenant} AND event_id = ${id} AND ts IN (
           SELECT ts FROM ${sqlIdentifier(t.ids)} WHERE tenant_id = ${tenant} AND id_hash = cityHash64(${id}) AND event_id = ${id}
         )
         LIMIT 1`,
      );
      return row ?? null;
    },

    /**
     * Up to `want` events of the tenant matching the filters, newest first (timestamp desc, id desc), strictly
     * after `position` in that order. `now` bounds the newest possible timestamp (ingest refuses later ones).
     */
    listPage(
      tenantId: string,
      filters: EventFilters,
      position: PagePosition | null,
      want: number,
      now: number,
    ) {
      return page<EventRow>(EVENT_COLUMNS, tenantId, filters, position, want, now);
    },

    /** As listPage, but only the keys of the list order: what an export needs to plan its cut. */
    listKeys(
      tenantId: string,
      filters: EventFilters,
      position: PagePosition | null,
      want: number,
      now: number,
    ) {
      return page<{ ts: string; event_id: string }>('ts, event_id', tenantId, filters, position, want, now);
    },
  };

  /**
   * A window of the page's range whose rows of the page come out in one query when the density is known;
   * otherwise, and for what that window did not hold, windows growing from one hour are probed for timestamps
   * only (a narrow column, so an oversized window costs little), and the rows are then read from exactly the
   * span those timestamps cover: the page's events are the newest `want` of the range, so their timestamps are
   * the newest `want` timestamps, ties included.
   */
  async function page<T extends { ts: string }>(
    columns: string,
    tenantId: string,
    filters: EventFilters,
    position: PagePosition | null,
    want: number,
    now: number,
  ): Promise<T[]> {
    const lo = filters.since ?? 0;
    const top = Math.min(
      filters.until ?? Infinity,
      now + MAX_FUTURE_SKEW_MS + 1,
      position ? position.ts + 1 : Infinity,
    );
    const events = sqlIdentifier((await tables()).events);
    const fixed = [`tenant_id = ${sqlValue(tenantId)}`, ...filterConditions(filters)];
    if (position) fixed.push(`(ts < ${sqlValue(position.ts)} OR event_id < ${sqlValue(position.id)})`);
    const select = <R>(
      cols: string,
      from: number,
      to: number,
      limit: number,
      order = 'ts DESC, event_id DESC',
    ) =>
      rows<R>(
        client,
        `SELECT ${cols} FROM ${events}
         WHERE ${[...fixed, `ts >= ${sqlValue(from)}`, `ts < ${sqlValue(to)}`].join(' AND ')}
         ORDER BY ${order} LIMIT ${sqlValue(limit)}`,
      );

    const found: T[] = [];
    let hi = top;
    let window = FIRST_WINDOW_MS;
    const density = densities.guess(tenantId, filters, position, top);
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
      const probed = await select<{ ts: string }>('ts', from, hi, rest - stamps.length, 'ts DESC');
      stamps.push(...probed.map((r) => Number(r.ts)));
      hi = from;
      window *= probed.length === 0 ? EMPTY_WINDOW_GROWTH : WINDOW_GROWTH;
    }
    if (stamps.length > 0) found.push(...(await select<T>(columns, stamps.at(-1)!, stamps[0]! + 1, rest)));

    // Only a full page measures a density: a short one may have read back to the tenant's first event, or to 1970.
    if (found.length === want)
      densities.learn(tenantId, filters, position, want, Number(found.at(-1)!.ts), top);
    return found;
  }
}

export type EventsReader = ReturnType<typeof eventsReader>;
