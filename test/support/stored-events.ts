import type { ClickHouseSettings } from '@clickhouse/client';
import type { ClickHouseClient } from '@audit/shared/platform';
import { EVENT_COLUMNS, type EventRow } from '@audit/shared/contract';
import { sqlIdentifier, sqlValue } from '@audit/shared/platform';
import { projectionTables } from '@audit/shared/projection';

/** Every stored row of a tenant, as the ingest shape, read without FINAL: a duplicate would show. */
export async function storedEvents(ch: ClickHouseClient, tenant: string, settings: ClickHouseSettings = {}) {
  const result = await ch.query({
    query: `SELECT ${EVENT_COLUMNS} FROM audit_events WHERE tenant_id = ${sqlValue(tenant)}`,
    format: 'JSONEachRow',
    clickhouse_settings: settings,
  });
  const rows = await result.json<EventRow>();
  return rows.map((r) => ({
    event_id: r.event_id,
    timestamp: new Date(Number(r.ts)).toISOString(),
    tenant_id: r.tenant_id,
    action: r.action,
    user_id: r.user_id,
    user_role: r.user_role,
    resource_type: r.resource_type,
    resource_id: r.resource_id,
    fields_accessed: JSON.parse(r.fields_accessed) as string[],
    phi_involved: r.phi_involved === 1,
    source_ip: r.source_ip,
    user_agent: r.user_agent,
    justification: r.justification,
    success: r.success === 1,
    details: JSON.parse(r.details) as unknown,
  }));
}

/**
 * The tenant's rows in `table`; for the events table, those reads can see: the filter index's view writes after
 * the events table's part is in, so an event is counted once the index holds it too (its action, dimension 1).
 */
export async function countRows(
  ch: ClickHouseClient,
  tenant: string,
  table = 'audit_events',
): Promise<number> {
  const ofTenant = `WHERE tenant_id = ${sqlValue(tenant)}`;
  const query =
    table === 'audit_events'
      ? `SELECT least((SELECT count() FROM audit_events ${ofTenant}),
          (SELECT count() FROM ${projectionTables(1).index} ${ofTenant} AND dim = 1)) AS n`
      : `SELECT count() AS n FROM ${sqlIdentifier(table)} ${ofTenant}`;
  const result = await ch.query({ query, format: 'JSONEachRow' });
  const [row] = await result.json<{ n: string }>();
  return Number(row?.n ?? 0);
}
