import { sleep, sqlIdentifier, sqlValue, type ClickHouseClient } from '../platform/index.js';
import {
  BUCKET_MS,
  bucketRowsQuery,
  existingGenerations,
  projectionTables,
  type ProjectionTables,
} from '../projection/index.js';

const MUTATION_POLL_MS = 200;
// A deletion's mutation rewrites every part that holds a matching row; past this it is called stuck, and the run
// fails (ClickHouse goes on with it; the next run waits for it again).
const MUTATION_DEADLINE_MS = 3 * 3600 * 1000;

/** An events table, and its generation's filter index and summary of the current shape where it has them. */
export interface PurgeTarget {
  events: string;
  index: Pick<ProjectionTables, 'index' | 'buckets'> | null;
}

const rows = async <T>(client: ClickHouseClient, query: string) =>
  (await client.query({ query, format: 'JSONEachRow' })).json<T>();

/**
 * The tables a purge acts on: every generation's events table, and its filter index and summary of the current
 * shape. An older shape's tables live only while an upgrade builds the new one (docs/operations.md "Backfilling the
 * filter index"), and go with it. The by-id table keeps its rows (an id and a time, no field of the event), as the
 * tree keeps the event's hash: they tell a purged event from one never stored, and keep a redelivered one from being
 * stored again.
 */
export async function purgeTables(client: ClickHouseClient, database: string): Promise<PurgeTarget[]> {
  const [generations, names] = await Promise.all([
    existingGenerations(client, database),
    rows<{ name: string }>(client, `SELECT name FROM system.tables WHERE database = ${sqlValue(database)}`),
  ]);
  const present = new Set(names.map((r) => r.name));
  return generations.map(projectionTables).map((t) => ({
    events: t.events,
    index: present.has(t.index) && present.has(t.buckets) ? { index: t.index, buckets: t.buckets } : null,
  }));
}

/** How many of the events table's rows satisfy `where`. */
export async function countWhere(client: ClickHouseClient, table: string, where: string): Promise<number> {
  const [row] = await rows<{ n: string }>(
    client,
    `SELECT count() AS n FROM ${sqlIdentifier(table)} WHERE ${where}`,
  );
  return Number(row?.n ?? 0);
}

const unfinished = (client: ClickHouseClient, table: string) =>
  rows<{ mutation_id: string }>(
    client,
    `SELECT mutation_id FROM system.mutations
      WHERE database = currentDatabase() AND table = ${sqlValue(table)} AND is_done = 0`,
  );

const mutationIds = async (client: ClickHouseClient, table: string) =>
  new Set(
    (
      await rows<{ mutation_id: string }>(
        client,
        `SELECT mutation_id FROM system.mutations
          WHERE database = currentDatabase() AND table = ${sqlValue(table)}`,
      )
    ).map((r) => r.mutation_id),
  );

/**
 * Deletes the table's rows that satisfy `where`, and waits until its mutation is done: ClickHouse runs it in the
 * background (18.16 has no `mutations_sync`; current versions run it so too unless asked), part by part, and a
 * part's rows are gone once it is rewritten. Only the mutations this call made are waited for, not another's.
 * The replaced parts leave the disk after the server's `old_parts_lifetime`.
 */
export async function deleteWhere(
  client: ClickHouseClient,
  table: string,
  where: string,
  now: () => number = Date.now,
): Promise<void> {
  const before = await mutationIds(client, table);
  await client.command({ query: `ALTER TABLE ${sqlIdentifier(table)} DELETE WHERE ${where}` });
  const deadline = now() + MUTATION_DEADLINE_MS;
  for (;;) {
    const ours = (await unfinished(client, table)).filter((m) => !before.has(m.mutation_id));
    if (ours.length === 0) return;
    if (now() > deadline) {
      throw new Error(`the deletion from ${table} did not finish in ${MUTATION_DEADLINE_MS / 3_600_000} h`);
    }
    await sleep(MUTATION_POLL_MS);
  }
}

/**
 * Sets the summary's counts of the tenant's hours before `purgedBefore` (a whole hour) to what the events table
 * holds there once the purge has removed its rows: the events holds kept. One insert of the differences, each
 * (dimension, value, hour) once, so that no count is ever below its events while it lands: a filtered page skips
 * the hours the summary counts empty, and only counts too high are harmless (docs/architecture.md "Read path").
 */
export async function settleBuckets(
  client: ClickHouseClient,
  t: Pick<ProjectionTables, 'events' | 'buckets'>,
  tenant: string,
  purgedBefore: number,
): Promise<void> {
  const ofTenant = `tenant_id = ${sqlValue(tenant)}`;
  const before = purgedBefore / BUCKET_MS;
  await client.command({
    query: `INSERT INTO ${sqlIdentifier(t.buckets)} (tenant_id, dim, value, bucket, n)
      SELECT tenant_id, dim, value, bucket, sum(delta) AS n FROM (
        SELECT tenant_id, toUInt8(dim) AS dim, value, toInt64(bucket) AS bucket, toInt64(-sum(n)) AS delta
          FROM ${sqlIdentifier(t.buckets)}
         WHERE ${ofTenant} AND bucket < ${sqlValue(before)} GROUP BY tenant_id, dim, value, bucket
        UNION ALL
        SELECT tenant_id, toUInt8(dim) AS dim, value, toInt64(bucket) AS bucket, toInt64(n) AS delta
          FROM (${bucketRowsQuery(t.events, `${ofTenant} AND ts < ${sqlValue(purgedBefore)}`)})
      ) GROUP BY tenant_id, dim, value, bucket HAVING n != 0`,
  });
}
