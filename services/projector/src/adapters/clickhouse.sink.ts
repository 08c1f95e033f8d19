import { Readable } from 'node:stream';
import {
  sleep,
  sqlIdentifier,
  sqlList,
  sqlValue,
  tsvField,
  type AuditEventRecord,
  type ClickHouseClient,
  type ProjectionTables,
  insertQueryPrefix,
  runningInserts,
} from '@audit/shared';
import { randomUUID } from 'node:crypto';
import { idKey } from '../domain/project-batch.js';
import type { EventSink } from '../domain/store-events.js';

// A flush may carry tens of thousands of ids (37 bytes each); ClickHouse's default limit is 256 KiB.
const MAX_QUERY_BYTES = 64 * 1024 * 1024;

const COLUMNS: [string, ...string[]] = [
  'tenant_id',
  'ts',
  'event_id',
  'action',
  'user_id',
  'user_role',
  'resource_type',
  'resource_id',
  'fields_accessed',
  'phi_involved',
  'source_ip',
  'user_agent',
  'justification',
  'success',
  'details',
  'ingested_at',
];

// One TabSeparated line per event, in COLUMNS order: no per-row objects or JSON, cheap to build and to parse.
const toLine = (e: AuditEventRecord) =>
  `${tsvField(e.tenant_id)}\t${e.timestamp}\t${e.event_id}\t${tsvField(e.action)}\t${tsvField(e.user_id)}\t${tsvField(
    e.user_role,
  )}\t${tsvField(e.resource_type)}\t${tsvField(e.resource_id)}\t${tsvField(e.fields_accessed)}\t${
    e.phi_involved ? 1 : 0
  }\t${tsvField(e.source_ip)}\t${tsvField(e.user_agent)}\t${tsvField(e.justification)}\t${e.success ? 1 : 0}\t${tsvField(
    e.details,
  )}\t${e.ingested_at}\n`;

const SETTLE_POLL_MS = 100;

/**
 * `database` names our inserts (query_id prefix), so that a new owner of a partition can wait for an insert an
 * earlier owner (a killed process, a timed-out request) left running before it looks up what is stored.
 */
export function clickhouseSink(
  client: ClickHouseClient,
  database: string,
  writer: 'live' | 'replay' = 'live',
): EventSink {
  const insertPrefix = insertQueryPrefix(database, writer);
  /** Events of the batch the events table holds but the by-id table lacks: their by-id rows are written. */
  async function repairIds(
    tables: ProjectionTables,
    events: readonly AuditEventRecord[],
    known: Set<string>,
  ) {
    const missing = events.filter((e) => !known.has(idKey(e)));
    if (missing.length === 0) return [];
    const times = sqlList([...new Set(missing.map((e) => e.timestamp))]);
    const where = (ids: readonly AuditEventRecord[] | readonly { tenant_id: string; event_id: string }[]) =>
      `tenant_id IN ${sqlList([...new Set(ids.map((e) => e.tenant_id))])}
        AND event_id IN (SELECT arrayJoin(splitByChar(',', ${sqlValue(ids.map((e) => e.event_id).join(','))})))`;
    const result = await client.query({
      query: `SELECT tenant_id, event_id FROM ${sqlIdentifier(tables.events)}
        WHERE ${where(missing)} AND ts IN ${times}`,
      format: 'JSONEachRow',
      clickhouse_settings: { max_query_size: String(MAX_QUERY_BYTES) },
    });
    const wanted = new Set(missing.map(idKey));
    const rows = (await result.json<{ tenant_id: string; event_id: string }>()).filter((r) =>
      wanted.has(idKey(r)),
    );
    if (rows.length > 0) {
      await client.command({
        query: `INSERT INTO ${sqlIdentifier(tables.ids)} (tenant_id, id_hash, event_id, ts)
          SELECT tenant_id, cityHash64(event_id), event_id, ts FROM ${sqlIdentifier(tables.events)}
          WHERE ${where(rows)} AND ts IN ${times}`,
        clickhouse_settings: { max_query_size: String(MAX_QUERY_BYTES) },
      });
    }
    return rows.map(idKey);
  }

  const on = (tables: ProjectionTables) => ({
    async storedKeys(events: readonly AuditEventRecord[], repair = false) {
      if (events.length === 0) return new Set<string>();
      const tenants = [...new Set(events.map((e) => e.tenant_id))];
      // Validated UUIDs hold no comma: one literal, split server-side, keeps parsing cheap at any batch size.
      const ids = events.map((e) => e.event_id).join(',');
      const result = await client.query({
        query: `SELECT tenant_id, event_id FROM ${sqlIdentifier(tables.ids)}
          WHERE tenant_id IN ${sqlList(tenants)}
            AND id_hash IN (SELECT cityHash64(arrayJoin(splitByChar(',', ${sqlValue(ids)}))))`,
        format: 'JSONEachRow',
        clickhouse_settings: { max_query_size: String(MAX_QUERY_BYTES) },
      });
      const keys = new Set<string>();
      for (const row of await result.json<{ tenant_id: string; event_id: string }>()) keys.add(idKey(row));
      if (repair) for (const key of await repairIds(tables, events, keys)) keys.add(key);
      return keys;
    },
    async insert(events: readonly AuditEventRecord[]) {
      await client.insert({
        query_id: `${insertPrefix}${randomUUID()}`,
        table: tables.events,
        columns: COLUMNS,
        format: 'TabSeparated',
        values: Readable.from([events.map(toLine).join('')], { objectMode: false }),
      });
    },
  });
  return {
    on,
    async insertsSettled() {
      for (;;) {
        if ((await runningInserts(client, database, writer)) === 0) return;
        await sleep(SETTLE_POLL_MS);
      }
    },
  };
}
