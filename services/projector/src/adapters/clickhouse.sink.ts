import { sqlList, type AuditEventRecord, type ClickHouseClient } from '@audit/shared';
import { idKey } from '../domain/project-batch.js';

export interface EventSink {
  /** Keys (see idKey) of the given events that are already stored. */
  storedKeys(events: readonly AuditEventRecord[]): Promise<Set<string>>;
  insert(events: readonly AuditEventRecord[]): Promise<void>;
}

// Keeps each lookup far below ClickHouse's max_query_size (256 KiB): a UUID literal costs about 40 bytes.
const IDS_PER_QUERY = 2000;

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
      const keys = new Set<string>();
      for (let i = 0; i < events.length; i += IDS_PER_QUERY) {
        const chunk = events.slice(i, i + IDS_PER_QUERY);
        const tenants = [...new Set(chunk.map((e) => e.tenant_id))];
        const result = await client.query({
          query: `SELECT tenant_id, event_id FROM audit_event_ids
            WHERE tenant_id IN ${sqlList(tenants)} AND event_id IN ${sqlList(chunk.map((e) => e.event_id))}`,
          format: 'JSONEachRow',
        });
        for (const row of await result.json<{ tenant_id: string; event_id: string }>()) keys.add(idKey(row));
      }
      return keys;
    },
    async insert(events) {
      await client.insert({ table: 'audit_events', values: events.map(toRow), format: 'JSONEachRow' });
    },
  };
}
