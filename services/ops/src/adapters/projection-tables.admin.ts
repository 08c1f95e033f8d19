import {
  sqlIdentifier,
  sqlValue,
  SINGLE_SERVER,
  type ClickHouseClient,
  type ClusterGuard,
  type SchemaWriter,
} from '@audit/shared/platform';
import {
  createFilterIndex,
  EVENTS_PARTITION_MS,
  FILTER_INDEX_SHAPE,
  filterIndexTables,
  filterIndexState,
  projectionTables,
  type ProjectionTables,
} from '@audit/shared/projection';

/**
 * A new generation shaped like `like` (same columns, engine, keys and settings), with the view that keeps its by-id
 * table, as 0001_audit_events has it for generation 1, and its filter index: complete from the start, since the
 * generation is still empty.
 */
export async function createGeneration(
  client: ClickHouseClient,
  schema: SchemaWriter,
  like: ProjectionTables,
  generation: number,
  now: () => number,
) {
  const t = projectionTables(generation);
  await schema.clone(like.events, t.events);
  await schema.clone(like.ids, t.ids);
  await schema.run(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${sqlIdentifier(t.idsView)} TO ${sqlIdentifier(t.ids)}
      AS SELECT tenant_id, cityHash64(event_id) AS id_hash, event_id, ts FROM ${sqlIdentifier(t.events)}`);
  await createFilterIndex(schema, t);
  await filterIndexState(client).markReady(generation, now());
  return t;
}

/**
 * INSERT … SELECT gathers blocks of about a million rows before the views see them, and the filter index's view
 * makes eight rows of each: blocks this size keep one statement's memory far below the server's limit (a view
 * push that fails half way leaves the events table written and the views not).
 */
export const VIEW_FRIENDLY_BLOCKS = { max_block_size: '65536', min_insert_block_size_rows: '65536' };

/**
 * Copies the events ingested before `since` from one generation to another (the view fills the by-id table), one
 * partition of the events table at a time: current ClickHouse refuses an insert block that spans more than 100
 * partitions, and one statement over a long history would. The partitions are read from the events themselves,
 * not from `system.parts`, which lists only the answering node's parts on a cluster.
 */
export async function copyBefore(
  client: ClickHouseClient,
  from: ProjectionTables,
  to: ProjectionTables,
  since: number,
  guard: ClusterGuard = SINGLE_SERVER,
) {
  const bucket = `intDiv(ts, ${sqlValue(EVENTS_PARTITION_MS)})`;
  const found = await client.query({
    query: `SELECT DISTINCT ${bucket} AS partition FROM ${sqlIdentifier(from.events)}
      WHERE ingested_at < ${sqlValue(since)} ORDER BY partition`,
    format: 'JSONEachRow',
  });
  for (const { partition } of await found.json<{ partition: string }>()) {
    await client.command({
      query: `INSERT INTO ${sqlIdentifier(to.events)} SELECT * FROM ${sqlIdentifier(from.events)}
        WHERE ingested_at < ${sqlValue(since)} AND ${bucket} = ${sqlValue(Number(partition))}`,
      clickhouse_settings: { max_execution_time: 0, ...VIEW_FRIENDLY_BLOCKS, ...guard.insertSettings },
    });
  }
}

/** A table's partitions (integer buckets of time) with their row counts, oldest first. */
export async function partitions(client: ClickHouseClient, table: string) {
  const result = await client.query({
    query: `SELECT partition, sum(rows) AS events FROM system.parts
      WHERE database = currentDatabase() AND table = ${sqlValue(table)} AND active
      GROUP BY partition ORDER BY toInt64(partition)`,
    format: 'JSONEachRow',
  });
  return (await result.json<{ partition: string; events: string }>()).map((r) => ({
    partition: Number(r.partition),
    events: Number(r.events),
  }));
}

/** Drops a generation: the views first, so nothing writes into the tables they fill while they go. */
export async function dropGeneration(schema: SchemaWriter, generation: number) {
  const t = projectionTables(generation);
  // The filter indexes of every shape: a generation made before the current shape still has its first one's.
  const shapes = Array.from({ length: FILTER_INDEX_SHAPE }, (_, i) => filterIndexTables(generation, i + 1));
  const views = [t.idsView, ...shapes.flatMap((s) => [s.indexView, s.bucketsView])];
  const tables = [t.ids, ...shapes.flatMap((s) => [s.index, s.buckets]), t.events];
  for (const table of [...views, ...tables]) await schema.run(`DROP TABLE IF EXISTS ${sqlIdentifier(table)}`);
}

export async function countEvents(client: ClickHouseClient, tables: ProjectionTables): Promise<number> {
  const result = await client.query({
    query: `SELECT count() AS n FROM ${sqlIdentifier(tables.events)}`,
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ n: string }>();
  return Number(row?.n ?? 0);
}
