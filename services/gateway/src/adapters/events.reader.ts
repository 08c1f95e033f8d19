import { sqlValue, type ClickHouseClient } from '@audit/shared';
import { EVENT_COLUMNS, type EventRow } from '../domain/audit-event.view.js';

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
  };
}

export type EventsReader = ReturnType<typeof eventsReader>;
