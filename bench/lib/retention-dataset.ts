// The retention benchmark's dataset: one tenant's events spread evenly over six years, generated inside ClickHouse
// (INSERT … SELECT FROM numbers()) into the project's own events table, whose views fill the by-id table, the filter
// index and its summary as the projector's inserts do; and copies of those tables for the floor's bare deletes.
import { sleep, sqlIdentifier, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import { bucketRowsQuery, indexRowsQuery, type ProjectionTables } from '@audit/shared/projection';
import { VIEW_FRIENDLY_BLOCKS } from '../../services/ops/src/adapters/projection-tables.admin.js';
import { COLUMNS, FIELDS, USER_AGENTS } from './bulk-load.js';
import { runPool } from './pool.js';

const DAY_MS = 86_400_000;
export const YEAR_MS = 365 * DAY_MS;
/** The whole history: six years up to an hour before now. */
export const HISTORY_MS = 6 * YEAR_MS;
/** One user's events (about 1 %), which a hold keeps. */
export const HELD_USER = 'u-held';
/** Rows per insert: one insert spans a few of the events table's 30-day partitions. */
const CHUNK = 100_000;

const h = (seed: number) => `cityHash64(g, ${seed})`;
const array = (items: readonly string[]) => `[${items.map(sqlValue).join(', ')}]`;
const pick = (items: readonly string[], seed: number) => `${array(items)}[1 + ${h(seed)} % ${items.length}]`;

// auth.login at 10 %, which one of the list cases filters on.
const ACTIONS = [
  'phi.read',
  'phi.read',
  'phi.read',
  'phi.read',
  'phi.query',
  'phi.query',
  'auth.login',
  'record.update',
  'phi.export',
  'admin.user.update',
];
export const LIST_ACTION = 'auth.login';

/** Events [first, first + rows) of `total`, evenly spaced in time from `startMs` over HISTORY_MS. */
function insertChunk(tenant: string, startMs: number, total: number, first: number, rows: number) {
  const step = Math.max(1, Math.floor(HISTORY_MS / total));
  return `INSERT INTO audit_events (${COLUMNS})
    SELECT ${sqlValue(tenant)} AS tenant_id, ts, toString(generateUUIDv4()) AS event_id, action,
      if(${h(7)} % 100 = 0, ${sqlValue(HELD_USER)}, concat('user-', toString(${h(19)} % 5000))) AS user_id,
      ${pick(['clinician', 'clinician', 'nurse', 'billing', 'admin', 'service'], 8)} AS user_role,
      resource_type,
      concat(substring(resource_type, 1, 3), '_', toString(${h(20)} % 2000000)) AS resource_id,
      if(phi, ${pick(FIELDS, 9)}, '[]') AS fields_accessed,
      phi AS phi_involved,
      concat('10.', toString(1 + ${h(21)} % 255), '.', toString(intDiv(${h(21)}, 256) % 256), '.',
        toString(intDiv(${h(21)}, 65536) % 256)) AS source_ip,
      ${pick(USER_AGENTS, 11)} AS user_agent,
      if(phi, ${array(['treatment', 'payment', 'operations'])}[1 + ${h(12)} % 3], '') AS justification,
      ${h(13)} % 1000 >= 15 AS success,
      concat('{"request_id":"', lower(hex(${h(14)})), '","duration_ms":', toString(${h(16)} % 900 + 3), '}')
        AS details,
      ts + 200 + ${h(18)} % 3000 AS ingested_at,
      if(phi, concat('pt-', toString(${h(23)} % 200000)), '') AS patient_id
    FROM (
      SELECT g, ts, ${pick(ACTIONS, 4)} AS action,
        ${pick(['patient', 'patient', 'claim', 'lab_result', 'encounter', 'prescription'], 5)} AS resource_type,
        substring(action, 1, 4) = 'phi.' AS phi
      FROM (
        SELECT ${first} + number AS g,
          ${startMs} + intDiv((${first} + number) * ${HISTORY_MS}, ${total}) + ${h(0)} % ${step} AS ts
        FROM numbers(${rows})
      )
    )`;
}

async function one<T>(ch: ClickHouseClient, query: string): Promise<T> {
  return (await (await ch.query({ query, format: 'JSONEachRow' })).json<T>())[0]!;
}

/**
 * `events` events of `tenant` from `endMs` - HISTORY_MS to `endMs`, evenly spaced, inserted into the database's
 * generation-1 events table (its views fill the rest), two inserts at a time. Returns the seconds it took.
 */
export async function loadHistory(
  ch: ClickHouseClient,
  tenant: string,
  events: number,
  endMs: number,
  log: (line: string) => void,
): Promise<number> {
  const startMs = endMs - HISTORY_MS;
  const chunks = Math.ceil(events / CHUNK);
  const started = performance.now();
  let done = 0;
  await runPool(chunks, 2, async (i) => {
    const rows = Math.min(CHUNK, events - i * CHUNK);
    await ch.command({
      query: insertChunk(tenant, startMs, events, i * CHUNK, rows),
      clickhouse_settings: VIEW_FRIENDLY_BLOCKS,
    });
    done += rows;
    if (i % 5 === 4) log(`  … ${done.toLocaleString('en-US')} of ${events.toLocaleString('en-US')} events`);
  });
  return (performance.now() - started) / 1000;
}

export type PurgedTables = Pick<ProjectionTables, 'events' | 'index' | 'buckets'>;

/**
 * Copies of the events table, filter index and summary, with all their rows, in `database` (made here), under the
 * same names: the floor's deletes act on them as the purge acts on the originals.
 */
export async function copyTables(ch: ClickHouseClient, from: string, database: string, t: PurgedTables) {
  await ch.command({ query: `CREATE DATABASE ${sqlIdentifier(database)}` });
  for (const table of [t.events, t.index, t.buckets]) {
    const [src, dst] = [from, database].map((db) => `${sqlIdentifier(db)}.${sqlIdentifier(table)}`);
    await ch.command({ query: `CREATE TABLE ${dst} AS ${src}` });
    await ch.command({
      query: `INSERT INTO ${dst} SELECT * FROM ${src}`,
      clickhouse_settings: VIEW_FRIENDLY_BLOCKS,
    });
  }
}

/** Deletes the rows of `table` (in the client's database) that satisfy `where`, and waits for the mutation. */
export async function bareDelete(ch: ClickHouseClient, table: string, where: string): Promise<number> {
  const started = performance.now();
  await ch.command({ query: `ALTER TABLE ${sqlIdentifier(table)} DELETE WHERE ${where}` });
  for (;;) {
    const pending = await one<{ n: string }>(
      ch,
      `SELECT count() AS n FROM system.mutations
        WHERE database = currentDatabase() AND table = ${sqlValue(table)} AND is_done = 0`,
    );
    if (Number(pending.n) === 0) return (performance.now() - started) / 1000;
    await sleep(50);
  }
}

export const countOf = async (ch: ClickHouseClient, table: string, where: string) =>
  Number((await one<{ n: string }>(ch, `SELECT count() AS n FROM ${sqlIdentifier(table)} WHERE ${where}`)).n);

/**
 * How far the tenant's filter index and summary are from what its events make (as the projector's views make
 * them): filter index rows the events do not derive or lack, and (dimension, value, hour) counts that differ.
 */
export async function indexDrift(ch: ClickHouseClient, t: PurgedTables, tenant: string) {
  const ofTenant = `tenant_id = ${sqlValue(tenant)}`;
  const row = `concat(toString(dim), '/', value, '/', event_id)`;
  const index = await one<{ extra: string; lacking: string }>(
    ch,
    `SELECT countIf(s > 0) AS extra, countIf(s < 0) AS lacking FROM (
       SELECT r, sum(x) AS s FROM (
         SELECT ${row} AS r, 1 AS x FROM ${sqlIdentifier(t.index)} WHERE ${ofTenant}
         UNION ALL
         SELECT ${row} AS r, -1 AS x FROM (${indexRowsQuery(t.events, ofTenant)})
       ) GROUP BY r HAVING s != 0)`,
  );
  const summary = await one<{ n: string; above: string }>(
    ch,
    `SELECT count() AS n, countIf(s > 0) AS above FROM (
       SELECT dim, value, bucket, sum(x) AS s FROM (
         SELECT toUInt8(dim) AS dim, value, toInt64(bucket) AS bucket, toInt64(n) AS x
           FROM ${sqlIdentifier(t.buckets)} WHERE ${ofTenant}
         UNION ALL
         SELECT toUInt8(dim) AS dim, value, toInt64(bucket) AS bucket, toInt64(-n) AS x
           FROM (${bucketRowsQuery(t.events, ofTenant)})
       ) GROUP BY dim, value, bucket HAVING s != 0)`,
  );
  return {
    extraIndexRows: Number(index.extra),
    lackingIndexRows: Number(index.lacking),
    summaryCountsOff: Number(summary.n),
    summaryCountsAbove: Number(summary.above),
  };
}
