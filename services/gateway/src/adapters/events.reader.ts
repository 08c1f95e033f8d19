import { MAX_FUTURE_SKEW_MS, EVENT_COLUMNS, type EventRow } from '@audit/shared/contract';
import { sqlIdentifier, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import {
  type LiveGeneration,
  filterConditions,
  filterSlices,
  type EventFilters,
} from '@audit/shared/projection';
import type { PagePosition } from '../domain/cursor.js';
import { pageDensities } from '../domain/page-density.js';
import { indexedPage } from './indexed-page.js';
import { pageQuery, rows } from './page-query.js';
import { probedPage } from './probed-page.js';

// The bytes of a row's large text fields (fields_accessed and details are stored as JSON text), which make its
// size: the rest are short and bounded.
const ROW_TEXT_BYTES =
  'length(details) + length(fields_accessed) + length(user_agent) + length(justification)';

/**
 * Reads of the projection's live generation (`tables`, asked once per read: a page or lookup that spans a switch to a
 * rebuilt generation reads one complete generation or the other). Every value is validated by the caller and
 * quoted by sqlValue.
 */
export function eventsReader(client: ClickHouseClient, tables: () => Promise<LiveGeneration>) {
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
     * Whether the by-id table knows the event: it keeps the id of an event a retention purge removed from the
     * events table (docs/retention.md "The purge"), so a lookup that found no row tells purged from never stored.
     */
    async wasStored(tenantId: string, eventId: string): Promise<boolean> {
      const tenant = sqlValue(tenantId);
      const id = sqlValue(eventId);
      const t = await tables();
      const found = await rows<{ n: string }>(
        client,
        `SELECT count() AS n FROM ${sqlIdentifier(t.ids)}
         WHERE tenant_id = ${tenant} AND id_hash = cityHash64(${id}) AND event_id = ${id}`,
      );
      return Number(found[0]?.n ?? 0) > 0;
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

    /**
     * As listPage, but only the keys of the list order, each with the bytes of its row's text fields: what an
     * export needs to plan its cut and the size of its reads.
     */
    listKeys(
      tenantId: string,
      filters: EventFilters,
      position: PagePosition | null,
      want: number,
      now: number,
    ) {
      return page<{ ts: string; event_id: string; bytes: string }>(
        `ts, event_id, ${ROW_TEXT_BYTES} AS bytes`,
        tenantId,
        filters,
        position,
        want,
        now,
      );
    },
  };

  /** The page's rows through the filter index where the live generation's is complete, else by probing. */
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
    const t = await tables();
    const conditions = [`tenant_id = ${sqlValue(tenantId)}`, ...filterConditions(filters)];
    if (position) conditions.push(`(ts < ${sqlValue(position.ts)} OR event_id < ${sqlValue(position.id)})`);
    const guess = densities.guess(tenantId, filters, position, top);
    const { rows: found, slice } = t.indexed
      ? await indexedPage<T>(
          client,
          t,
          { tenantId, slices: filterSlices(filters), conditions },
          columns,
          want,
          lo,
          top,
          guess,
        )
      : {
          rows: await probedPage<T>(
            pageQuery(client, t.events, conditions),
            guess && 'density' in guess ? guess.density : undefined,
            columns,
            want,
            lo,
            top,
          ),
          slice: undefined,
        };
    // Only a full page measures a density: a short one may have read back to the tenant's first event, or to 1970.
    // It says instead that its range held few enough rows to read whole next time.
    densities.learn(
      tenantId,
      filters,
      position,
      found.length === want
        ? { count: want, from: Number(found.at(-1)!.ts), to: top, slice }
        : { short: true, slice },
    );
    return found;
  }
}

export type EventsReader = ReturnType<typeof eventsReader>;
