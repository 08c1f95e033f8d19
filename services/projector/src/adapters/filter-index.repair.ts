import { type AuditEventRecord } from '@audit/shared/contract';
import {
  sqlIdentifier,
  sqlList,
  sqlValue,
  type ClickHouseClient,
  type ClusterGuard,
} from '@audit/shared/platform';
import {
  BUCKET_MS,
  bucketRowsQuery,
  indexedValues,
  indexRowsQuery,
  type ProjectionTables,
} from '@audit/shared/projection';
import { BATCH_QUERY_SETTINGS, batchCondition, textSet } from './batch-condition.js';

/**
 * How a repair writes: on a cluster, reads that see every acknowledged write and quorum writes; every write with a
 * query id of the writer's (EventSink.insertsSettled waits for them as for its inserts).
 */
export interface RepairWrites {
  guard: ClusterGuard;
  queryId: () => string;
}

function repairQueries(client: ClickHouseClient, { guard, queryId }: RepairWrites) {
  return {
    rows: async <T>(query: string) =>
      (
        await client.query({
          query,
          format: 'JSONEachRow',
          clickhouse_settings: { ...BATCH_QUERY_SETTINGS, ...guard.readSettings },
        })
      ).json<T>(),
    command: (query: string) =>
      client.command({
        query_id: queryId(),
        query,
        clickhouse_settings: { ...BATCH_QUERY_SETTINGS, ...guard.insertSettings },
      }),
    insert: (table: string, values: object[]) =>
      client.insert({
        query_id: queryId(),
        table,
        format: 'JSONEachRow',
        values,
        clickhouse_settings: guard.insertSettings,
      }),
  };
}
type RepairQueries = ReturnType<typeof repairQueries>;

const bucketKey = (tenant: string, dim: number, value: string, bucket: number) =>
  JSON.stringify([tenant, dim, value, bucket]);

/**
 * Makes the filter index and its summary whole again for events the events table holds (an insert the server
 * died in the middle of may have written the events table and not all of its views). Every summary count the
 * events touch is first set to what the events table holds there; then the missing index rows are written from
 * the events table. In that order a reader never meets index rows the summary does not count yet: a filtered page
 * skips stretches the summary counts empty, and only counts too high are harmless (docs/architecture.md "Read
 * path"). Only the projector that owns the events' tenants writes their rows, so nothing moves these counts
 * meanwhile.
 */
export async function repairFilterIndex(
  client: ClickHouseClient,
  tables: ProjectionTables,
  events: readonly AuditEventRecord[],
  writes: RepairWrites,
): Promise<void> {
  if (events.length === 0) return;
  const q = repairQueries(client, writes);
  const tenants = sqlList([...new Set(events.map((e) => e.tenant_id))]);
  const ofEvents = batchCondition(events);

  await reconcileBuckets(q, tables, events, tenants);
  const held = await q.rows<{ event_id: string; dim: number }>(
    `SELECT event_id, dim FROM ${sqlIdentifier(tables.index)} WHERE ${ofEvents}`,
  );
  const have = new Set(held.map((r) => `${r.event_id}:${r.dim}`));
  const missing = events.flatMap((e) =>
    indexedValues(e)
      .map(([dim]) => `${e.event_id}:${dim}`)
      .filter((key) => !have.has(key)),
  );
  if (missing.length > 0) {
    await q.command(
      `INSERT INTO ${sqlIdentifier(tables.index)} ${indexRowsQuery(
        tables.events,
        `${ofEvents} AND concat(event_id, ':', toString(d.1)) IN ${textSet(missing)}`,
      )}`,
    );
  }
}

/** Sets each summary count the events touch to the number of events the events table holds there. */
async function reconcileBuckets(
  q: RepairQueries,
  tables: ProjectionTables,
  events: readonly AuditEventRecord[],
  tenants: string,
) {
  const touched = new Set<string>();
  const hours = new Set<number>();
  for (const e of events) {
    const bucket = Math.floor(e.timestamp / BUCKET_MS);
    hours.add(bucket);
    for (const [dim, value] of [[0, ''] as [number, string], ...indexedValues(e)]) {
      touched.add(bucketKey(e.tenant_id, dim, value, bucket));
    }
  }
  const inHours = (column: string) =>
    [...hours]
      .map(
        (h) => `(${column} >= ${sqlValue(h * BUCKET_MS)} AND ${column} < ${sqlValue((h + 1) * BUCKET_MS)})`,
      )
      .join(' OR ');
  const ofBuckets = `tenant_id IN ${tenants} AND bucket IN ${sqlList([...hours])}`;
  type Count = { tenant_id: string; dim: number; value: string; bucket: string; n: string };
  const [held, summary] = await Promise.all([
    q.rows<Count>(
      `SELECT tenant_id, dim, value, bucket, n
       FROM (${bucketRowsQuery(tables.events, `tenant_id IN ${tenants} AND (${inHours('ts')})`)})`,
    ),
    q.rows<Count>(
      `SELECT tenant_id, dim, value, bucket, sum(n) AS n FROM ${sqlIdentifier(tables.buckets)}
       WHERE ${ofBuckets} GROUP BY tenant_id, dim, value, bucket`,
    ),
  ]);
  const want = new Map<string, number>();
  for (const r of held)
    want.set(bucketKey(r.tenant_id, Number(r.dim), r.value, Number(r.bucket)), Number(r.n));
  const counted = new Map(
    summary.map((r) => [bucketKey(r.tenant_id, Number(r.dim), r.value, Number(r.bucket)), Number(r.n)]),
  );
  const corrections = [...touched]
    .map((key) => ({ key, n: (want.get(key) ?? 0) - (counted.get(key) ?? 0) }))
    .filter((c) => c.n !== 0)
    .map(({ key, n }) => {
      const [tenant_id, dim, value, bucket] = JSON.parse(key) as [string, number, string, number];
      return { tenant_id, dim, value, bucket, n };
    });
  if (corrections.length > 0) {
    await q.insert(tables.buckets, corrections);
  }
}
