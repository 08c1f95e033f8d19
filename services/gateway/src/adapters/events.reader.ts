import { MAX_FUTURE_SKEW_MS, sqlValue, type ClickHouseClient } from '@audit/shared';
import { EVENT_COLUMNS, type EventRow } from '../domain/audit-event.view.js';
import type { PagePosition } from '../domain/cursor.js';
import type { EventFilters } from '../domain/list-query.js';

// ClickHouse 18.16 cannot read in sort order, so a page never asks for "the newest N of the tenant": it reads a
// time window just below where the page starts, and widens the window (x4) only while the page is not full.
const FIRST_WINDOW_MS = 60 * 60 * 1000;
const WINDOW_GROWTH = 4;
// Once a tenant's density under some filters is known, the first window is sized to hold the page with this much
// room: one query then usually answers the page, and reads little more than it returns.
const WINDOW_MARGIN = 1.5;
const REMEMBERED_DENSITIES = 10_000;

function filterConditions(f: EventFilters): string[] {
  const conditions: string[] = [];
  if (f.action !== undefined) conditions.push(`action = ${sqlValue(f.action)}`);
  if (f.resource_type !== undefined) conditions.push(`resource_type = ${sqlValue(f.resource_type)}`);
  if (f.phi_involved !== undefined) conditions.push(`phi_involved = ${sqlValue(f.phi_involved)}`);
  return conditions;
}

async function rows<T>(client: ClickHouseClient, query: string): Promise<T[]> {
  return (await client.query({ query, format: 'JSONEachRow' })).json<T>();
}

/** Events per millisecond last seen for a tenant and filters (the time bounds aside), for a bounded set of them. */
function densityMemory() {
  const densities = new Map<string, number>();
  const keyOf = (tenantId: string, f: EventFilters) =>
    JSON.stringify([tenantId, f.action, f.resource_type, f.phi_involved]);
  return {
    get: (tenantId: string, f: EventFilters) => densities.get(keyOf(tenantId, f)),
    set(tenantId: string, f: EventFilters, density: number) {
      const key = keyOf(tenantId, f);
      densities.delete(key);
      if (densities.size >= REMEMBERED_DENSITIES) densities.delete(densities.keys().next().value!);
      densities.set(key, density);
    },
  };
}

/** Reads of the audit_events projection. Every value is validated by the caller and quoted by sqlValue. */
export function eventsReader(client: ClickHouseClient) {
  const densities = densityMemory();
  return {
    /**
     * One event by id within one tenant, without scanning the tenant: the by-id table gives its timestamp, the
     * timestamp and id pin the row in audit_events' primary key. LIMIT 1 also hides a duplicate a server crash
     * could leave until ClickHouse merges it away.
     */
    async findEvent(tenantId: string, eventId: string): Promise<EventRow | null> {
      const tenant = sqlValue(tenantId);
      const id = sqlValue(eventId);
      const [located] = await rows<{ ts: string }>(
        client,
        `SELECT ts FROM audit_event_ids
         WHERE tenant_id = ${tenant} AND id_hash = cityHash64(${id}) AND event_id = ${id} LIMIT 1`,
      );
      if (!located) return null;
      const [row] = await rows<EventRow>(
        client,
        `SELECT ${EVENT_COLUMNS} FROM audit_events
         WHERE tenant_id = ${tenant} AND ts = ${sqlValue(BigInt(located.ts))} AND event_id = ${id} LIMIT 1`,
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
        `SELECT ${cols} FROM audit_events
         WHERE ${[...fixed, `ts >= ${sqlValue(from)}`, `ts < ${sqlValue(to)}`].join(' AND ')}
         ORDER BY ${order} LIMIT ${sqlValue(limit)}`,
      );

    const found: T[] = [];
    let hi = top;
    let window = FIRST_WINDOW_MS;
    const density = densities.get(tenantId, filters);
    if (density !== undefined && hi > lo) {
      window = Math.ceil((WINDOW_MARGIN * want) / density);
      const from = Math.max(lo, hi - window);
      found.push(...(await select<T>(columns, from, hi, want)));
      hi = from;
      window *= WINDOW_GROWTH;
    }
    const rest = want - found.length;
    const stamps: number[] = [];
    for (; stamps.length < rest && hi > lo; window *= WINDOW_GROWTH) {
      const from = Math.max(lo, hi - window);
      const probed = await select<{ ts: string }>('ts', from, hi, rest - stamps.length, 'ts DESC');
      stamps.push(...probed.map((r) => Number(r.ts)));
      hi = from;
    }
    if (stamps.length > 0) found.push(...(await select<T>(columns, stamps.at(-1)!, stamps[0]! + 1, rest)));

    const oldest = found.at(-1);
    if (found.length === want) densities.set(tenantId, filters, want / (top - Number(oldest!.ts)));
    else if (found.length > 0 && top > lo) densities.set(tenantId, filters, found.length / (top - lo));
    return found;
  }
}

export type EventsReader = ReturnType<typeof eventsReader>;
