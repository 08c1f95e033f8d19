import { MAX_FUTURE_SKEW_MS, sqlValue, type ClickHouseClient } from '@audit/shared';
import { EVENT_COLUMNS, type EventRow } from '../domain/audit-event.view.js';
import type { PagePosition } from '../domain/cursor.js';
import type { EventFilters } from '../domain/list-query.js';

// ClickHouse 18.16 cannot read in sort order, so a page never asks for "the newest N of the tenant": it reads a
// time window just below where the page starts, and widens the window (x4) only while the page is not full.
const FIRST_WINDOW_MS = 60 * 60 * 1000;
const WINDOW_GROWTH = 4;

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

/** Reads of the audit_events projection. Every value is validated by the caller and quoted by sqlValue. */
export function eventsReader(client: ClickHouseClient) {
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

  async function page<T>(
    columns: string,
    tenantId: string,
    filters: EventFilters,
    position: PagePosition | null,
    want: number,
    now: number,
  ): Promise<T[]> {
    const lo = filters.since ?? 0;
    let hi = Math.min(
      filters.until ?? Infinity,
      now + MAX_FUTURE_SKEW_MS + 1,
      position ? position.ts + 1 : Infinity,
    );
    const fixed = [`tenant_id = ${sqlValue(tenantId)}`, ...filterConditions(filters)];
    if (position) fixed.push(`(ts < ${sqlValue(position.ts)} OR event_id < ${sqlValue(position.id)})`);
    const found: T[] = [];
    for (let window = FIRST_WINDOW_MS; found.length < want && hi > lo; window *= WINDOW_GROWTH) {
      const from = Math.max(lo, hi - window);
      const conditions = [...fixed, `ts >= ${sqlValue(from)}`, `ts < ${sqlValue(hi)}`];
      found.push(
        ...(await rows<T>(
          client,
          `SELECT ${columns} FROM audit_events WHERE ${conditions.join(' AND ')}
             ORDER BY ts DESC, event_id DESC LIMIT ${sqlValue(want - found.length)}`,
        )),
      );
      hi = from;
    }
    return found;
  }
}

export type EventsReader = ReturnType<typeof eventsReader>;
