// The export benchmark's dataset: one tenant's events (and a tenth as many of other tenants' around them),
// generated inside ClickHouse (INSERT … SELECT FROM numbers()) into the project's own tables, as bulk-load.ts
// does for bench:read. Field sizes are those of bulk-load.ts (about 600 bytes of NDJSON an event); timestamps
// tie at the same millisecond in small groups (a client's batch), and one millisecond holds a bulk import of 1 %
// of the tenant's events, more than an export job's chunk at 10 million.
import { migrateClickHouse } from '@audit/shared/migrations';
import {
  createClickHouse,
  sleep,
  sqlIdentifier,
  sqlValue,
  type ClickHouseClient,
  type ClickHouseSettings,
} from '@audit/shared/platform';
import { projectionTables } from '@audit/shared/projection';
import { COLUMNS, FIELDS, USER_AGENTS } from './bulk-load.js';
import { runPool } from './pool.js';

export const EXPORT_TENANT = 'bench-export';
const DAY_MS = 86_400_000;
/** The tenant's history: this many days before the end. */
const DAYS = 90;
/** Rows per INSERT … SELECT: two run at once, one per core. */
const PIECE = 1_000_000;

export interface ExportDataset {
  /** The tenant's events: every one of them lies in [startMs, endMs). */
  events: number;
  others: number;
  startMs: number;
  endMs: number;
  /** The millisecond of the bulk import, and its rows. */
  bulkMs: number;
  bulkRows: number;
}

const h = (seed: number) => `cityHash64(g, ${seed})`;
const array = (items: readonly string[]) => `[${items.map(sqlValue).join(', ')}]`;
const pick = (items: readonly string[], seed: number) => `${array(items)}[1 + ${h(seed)} % ${items.length}]`;

const ACTIONS = [
  'phi.read',
  'phi.read',
  'phi.read',
  'phi.query',
  'phi.query',
  'auth.login',
  'record.update',
  'phi.export',
  'admin.user.update',
  'phi.decrypt',
];
const RESOURCE_TYPES = ['patient', 'patient', 'claim', 'lab_result', 'encounter', 'prescription'];
const ROLES = ['clinician', 'clinician', 'clinician', 'nurse', 'nurse', 'billing', 'admin', 'service'];

/**
 * Events `first` to `first + rows` of the tenant (or of the others). A third of them share their millisecond with
 * the neighbours of their group of 16 (a batch sent at once); the tenant's first `bulkRows` all lie at `bulkMs`.
 */
function insertPiece(tenant: string | null, first: number, rows: number, d: ExportDataset) {
  const span = d.endMs - d.startMs;
  const tenantExpr = tenant === null ? `concat('bench-other-', toString(${h(3)} % 50))` : sqlValue(tenant);
  const bulk = tenant === null ? '0' : `g < ${d.bulkRows}`;
  return `INSERT INTO audit_events (${COLUMNS})
    SELECT tenant_id, ts, toString(generateUUIDv4()) AS event_id, action,
      concat('user-', toString(${h(19)} % 5000)) AS user_id,
      ${pick(ROLES, 8)} AS user_role,
      resource_type,
      concat(substring(resource_type, 1, 3), '_', toString(${h(20)} % 2000000)) AS resource_id,
      if(phi, ${pick(FIELDS, 9)}, '[]') AS fields_accessed,
      phi AS phi_involved,
      concat('10.', toString(1 + ${h(21)} % 255), '.', toString(intDiv(${h(21)}, 256) % 256), '.',
        toString(intDiv(${h(21)}, 65536) % 256)) AS source_ip,
      ${pick(USER_AGENTS, 11)} AS user_agent,
      if(phi AND ${h(12)} % 10 < 6, ${array(['treatment', 'payment', 'operations'])}[1 + intDiv(${h(12)}, 10) % 3], '')
        AS justification,
      ${h(13)} % 1000 >= 15 AS success,
      concat('{"request_id":"', lower(hex(${h(14)})), '","method":"', ${pick(['GET', 'GET', 'GET', 'POST', 'PUT'], 15)},
        '","path":"/v2/', resource_type, 's/', resource_id, '","duration_ms":', toString(${h(16)} % 900 + 3),
        ',"session":"', lower(hex(${h(17)})), '"}') AS details,
      ts + 200 + ${h(18)} % 3000 AS ingested_at
    FROM (
      SELECT g, ${tenantExpr} AS tenant_id,
        multiIf(${bulk}, ${d.bulkMs},
          ${d.startMs} + cityHash64(if(${h(1)} % 3 = 0, intDiv(g, 16), g + 1000000000000), ${tenant === null ? 2 : 0}) % ${span})
          AS ts,
        ${pick(ACTIONS, 4)} AS action, ${pick(RESOURCE_TYPES, 5)} AS resource_type,
        substring(action, 1, 4) = 'phi.' AS phi
      FROM (SELECT ${first} + number AS g FROM numbers(${rows}))
    )`;
}

async function one<T>(ch: ClickHouseClient, query: string): Promise<T> {
  return (await (await ch.query({ query, format: 'JSONEachRow' })).json<T>())[0]!;
}

/** Waits until ClickHouse has had no merge running in the database for a few seconds. */
export async function settleMerges(ch: ClickHouseClient, database: string) {
  let quietSince = Date.now();
  while (Date.now() - quietSince < 5000) {
    const merging = await one<{ n: string }>(
      ch,
      `SELECT count() AS n FROM system.merges WHERE database = ${sqlValue(database)}`,
    );
    if (Number(merging.n) > 0) quietSince = Date.now();
    await sleep(500);
  }
}

/**
 * A fresh database made by the project's migrations, holding `events` events of EXPORT_TENANT over the 90 days
 * before the last whole minute, and a tenth as many of 50 other tenants over the same days. The filter index's
 * two views are dropped before the load and made again after it: the exporter never reads the index (it reads the
 * events table by time), and filling it would take most of the load's time. The by-id table's view stays.
 */
export async function loadExportDataset(
  settings: ClickHouseSettings,
  events: number,
  log: (line: string) => void,
): Promise<ExportDataset> {
  await migrateClickHouse(settings);
  const ch = createClickHouse(settings, settings.database, 3_600_000);
  try {
    const tables = projectionTables(1);
    for (const view of [tables.indexView, tables.bucketsView]) {
      await ch.command({ query: `DROP TABLE ${sqlIdentifier(view)}` });
    }
    const endMs = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;
    const startMs = endMs - DAYS * DAY_MS;
    const bulkRows = Math.floor(events / 100);
    const d: ExportDataset = {
      events,
      others: Math.floor(events / 10),
      startMs,
      endMs,
      // A weekday afternoon in the middle of the history, on a whole second.
      bulkMs: startMs + Math.floor(DAYS / 2) * DAY_MS + 14 * 3_600_000,
      bulkRows,
    };
    const pieces = [
      ...Array.from({ length: Math.ceil(events / PIECE) }, (_, i) => ({
        tenant: EXPORT_TENANT as string | null,
        first: i * PIECE,
        rows: Math.min(PIECE, events - i * PIECE),
      })),
      ...Array.from({ length: Math.ceil(d.others / PIECE) }, (_, i) => ({
        tenant: null,
        first: 1_000_000_000 + i * PIECE,
        rows: Math.min(PIECE, d.others - i * PIECE),
      })),
    ];
    const started = performance.now();
    await runPool(pieces.length, 2, async (i) => {
      const p = pieces[i]!;
      await ch.command({
        query: insertPiece(p.tenant, p.first, p.rows, d),
        clickhouse_settings: { max_block_size: '65536', min_insert_block_size_rows: '65536' },
      });
    });
    const inserted = (performance.now() - started) / 1000;
    await settleMerges(ch, settings.database);
    // The index's views again, as the migrations made them (empty for the loaded events: nothing here reads it).
    await migrateClickHouse(settings);
    const counted = await one<{ mine: string; all: string; bulk: string }>(
      ch,
      `SELECT countIf(tenant_id = ${sqlValue(EXPORT_TENANT)}) AS mine, count() AS all,
         countIf(tenant_id = ${sqlValue(EXPORT_TENANT)} AND ts = ${d.bulkMs}) AS bulk FROM audit_events`,
    );
    if (Number(counted.mine) !== events || Number(counted.all) !== events + d.others) {
      throw new Error(`loaded ${counted.mine} events of the tenant and ${counted.all} in all`);
    }
    log(
      `dataset: ${events.toLocaleString('en-US')} events of ${EXPORT_TENANT} (${Number(counted.bulk).toLocaleString('en-US')} at one millisecond) and ${d.others.toLocaleString('en-US')} of 50 other tenants over ${DAYS} days, loaded in ${inserted.toFixed(0)} s, merges settled after ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    return d;
  } finally {
    await ch.close();
  }
}
