import { sqlList, sqlValue, type AuditEventRecord, type ClickHouseClient } from '@audit/shared';
import { idKey } from '../domain/project-batch.js';

export interface EventSink {
  /** Keys (see idKey) of the given events that are already stored. */
  storedKeys(events: readonly AuditEventRecord[]): Promise<Set<string>>;
  insert(events: readonly AuditEventRecord[]): Promise<void>;
}

// A flush may carry tens of thousands of ids (37 bytes each); ClickHouse's default limit is 256 KiB.
const MAX_QUERY_BYTES = 64 * 1024 * 1024;

const toRow = (e: AuditEventRecord) => ({
  tenant_id: e.tenant_id,
  ts: e.timestamp,
  event_id: e.event_id,
  action: e.action,
  user_id: e.user_id,
  user_role: e.user_role,
  resource_type: e.resource_type,
  resource_id: e.resource_id,
  fields_accessed: e.fields_accessed,
  phi_involved: e.phi_involved ? 1 : 0,
  source_ip: e.source_ip,
  user_agent: e.user_agent,
  justification: e.justification,
  success: e.success ? 1 : 0,
  details: e.details,
  ingested_at: e.ingested_at,
});

export function clickhouseSink(client: ClickHouseClient): EventSink {
  return {
    async storedKeys(events) {
      if (events.length === 0) return new Set();
      const tenants = [...new Set(events.map((e) => e.tenant_id))];
      // Validated UUIDs hold no comma: one literal, split server-side, keeps parsing cheap at any batch size.
      const ids = events.map((e) => e.event_id).join(',');
      const result = await client.query({
        query: `SELECT tenant_id, event_id FROM audit_event_ids
          WHERE tenant_id IN ${sqlList(tenants)}
            AND id_hash IN (SELECT cityHash64(arrayJoin(splitByChar(',', ${sqlValue(ids)}))))`,
        format: 'JSONEachRow',
        clickhouse_settings: { max_query_size: String(MAX_QUERY_BYTES) },
      });
      const keys = new Set<string>();
      for (const row of await result.json<{ tenant_id: string; event_id: string }>()) keys.add(idKey(row));
      return keys;
    },
    async insert(events) {
      await client.insert({ table: 'audit_events', values: events.map(toRow), format: 'JSONEachRow' });
    },
  };
}
