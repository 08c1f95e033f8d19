import { Readable } from 'node:stream';
import { type AuditEventRecord } from '@audit/shared/contract';
import {
  sleep,
  sqlIdentifier,
  sqlList,
  sqlValue,
  type ClickHouseClient,
  SINGLE_SERVER,
  type ClusterGuard,
} from '@audit/shared/platform';
import {
  type ProjectionTables,
  EVENT_TABLE_COLUMNS,
  insertQueryPrefix,
  pendingQuorums,
  runningInserts,
} from '@audit/shared/projection';
import { tsvField } from './tsv.js';
import { randomUUID } from 'node:crypto';
import { partitionChunks } from '../domain/partition-chunks.js';
import { idKey } from '../domain/project-batch.js';
import type { EventSink } from '../domain/store-events.js';
import { BATCH_QUERY_SETTINGS, batchCondition } from './batch-condition.js';
import { repairFilterIndex } from './filter-index.repair.js';

const COLUMNS = EVENT_TABLE_COLUMNS.map(([name]) => name) as [string, ...string[]];

// One TabSeparated line per event, in COLUMNS order: no per-row objects or JSON, cheap to build and to parse.
const toLine = (e: AuditEventRecord) =>
  `${tsvField(e.tenant_id)}\t${e.timestamp}\t${e.event_id}\t${tsvField(e.action)}\t${tsvField(e.user_id)}\t${tsvField(
    e.user_role,
  )}\t${tsvField(e.resource_type)}\t${tsvField(e.resource_id)}\t${tsvField(e.fields_accessed)}\t${
    e.phi_involved ? 1 : 0
  }\t${tsvField(e.source_ip)}\t${tsvField(e.user_agent)}\t${tsvField(e.justification)}\t${e.success ? 1 : 0}\t${tsvField(
    e.details,
  )}\t${e.ingested_at}\t${tsvField(e.patient_id)}\t${tsvField(e.purpose_of_use)}\t${tsvField(e.recipient)}\t${
    e.disclosure ? 1 : 0
  }\t${tsvField(e.accounting_exclusion)}\t${e.leaf_salts}\n`;

const SETTLE_POLL_MS = 100;
// A pending quorum waits for a replica to come back: seconds at least, and each look is a query per table.
const QUORUM_POLL_MS = 1000;

/**
 * `database` names our inserts (query_id prefix), so that a new owner of a partition can wait for an insert an
 * earlier owner (a killed process, a timed-out request) left running before it looks up what is stored. On a
 * cluster, `guard` makes every write a quorum insert and every read that decides what to write a consistent one.
 *
 * `inserts` sends the events table's inserts, each on a connection of its own (createClickHouse without
 * keep-alive). ClickHouse 18.16 stopping cleanly closes its listening sockets but goes on serving requests on
 * connections already open (its wait for them ends after `shutdown_wait_unfinished`, and the process only exits
 * seconds later), and while it shuts its tables down, each materialized view's shutdown unhooks the view from the
 * events table before the tables go: an insert that starts then writes the events table and only the views not
 * shut down yet, and is answered 200. Nothing would ever repair it (only a failed write is). A new connection
 * cannot be opened once the server has closed its listening sockets (within a second of the stop, seconds before
 * its tables shut down): such an insert is refused instead, and its retry repairs what a torn one left.
 */
export function clickhouseSink(
  client: ClickHouseClient,
  database: string,
  writer: 'live' | 'replay' = 'live',
  guard: ClusterGuard = SINGLE_SERVER,
  inserts: ClickHouseClient = client,
): EventSink {
  const insertPrefix = insertQueryPrefix(database, writer);
  // Every write carries the prefix, a repair's too, so that insertsSettled waits for all of them.
  const queryId = () => `${insertPrefix}${randomUUID()}`;
  const readSettings = { ...BATCH_QUERY_SETTINGS, ...guard.readSettings };
  /** Keys of the events the events table holds (whether or not the by-id table has them). */
  async function inEventsTable(tables: ProjectionTables, events: readonly AuditEventRecord[]) {
    const result = await client.query({
      query: `SELECT tenant_id, event_id FROM ${sqlIdentifier(tables.events)}
        WHERE ${batchCondition(events)}`,
      format: 'JSONEachRow',
      clickhouse_settings: readSettings,
    });
    const wanted = new Set(events.map(idKey));
    return new Set(
      (await result.json<{ tenant_id: string; event_id: string }>()).map(idKey).filter((k) => wanted.has(k)),
    );
  }

  /** By-id rows for events the events table holds but the by-id table lacks. */
  async function repairIds(tables: ProjectionTables, torn: readonly AuditEventRecord[]) {
    if (torn.length === 0) return;
    await client.command({
      query_id: queryId(),
      query: `INSERT INTO ${sqlIdentifier(tables.ids)} (tenant_id, id_hash, event_id, ts)
        SELECT tenant_id, cityHash64(event_id), event_id, ts FROM ${sqlIdentifier(tables.events)}
        WHERE ${batchCondition(torn)}`,
      clickhouse_settings: { ...BATCH_QUERY_SETTINGS, ...guard.insertSettings },
    });
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
        clickhouse_settings: readSettings,
      });
      const keys = new Set<string>();
      for (const row of await result.json<{ tenant_id: string; event_id: string }>()) keys.add(idKey(row));
      if (!repair) return keys;
      // The events table is written before the views fill the others: what it holds is stored, and the
      // rest of its rows (by-id, filter index, summary) are made whole.
      const held = await inEventsTable(tables, events);
      const present = events.filter((e) => held.has(idKey(e)));
      await repairIds(
        tables,
        present.filter((e) => !keys.has(idKey(e))),
      );
      await repairFilterIndex(client, tables, present, { guard, queryId });
      return new Set([...keys, ...held]);
    },
    // One insert per chunk of at most MAX_PARTITIONS_PER_INSERT partitions (a history backfill can span decades).
    // A write that fails between two is as an insert torn in the middle: its retry finds what the first stored.
    async insert(events: readonly AuditEventRecord[]) {
      for (const chunk of partitionChunks(events)) {
        await inserts.insert({
          query_id: queryId(),
          table: tables.events,
          columns: COLUMNS,
          format: 'TabSeparated',
          clickhouse_settings: guard.insertSettings,
          values: Readable.from([chunk.map(toLine).join('')], { objectMode: false }),
        });
      }
    },
  });
  return {
    on,
    async insertsSettled() {
      for (;;) {
        if ((await runningInserts(client, database, writer, guard)) > 0) await sleep(SETTLE_POLL_MS);
        else if ((await pendingQuorums(client, database, guard)) > 0) await sleep(QUORUM_POLL_MS);
        else return;
      }
    },
  };
}
