import type { ClickHouseClient } from '@clickhouse/client';
import type { SchemaWriter } from '../platform/clickhouse/schema-writer.js';
import { sqlIdentifier, sqlValue } from '../platform/clickhouse/sql-quote.js';
import { ADDED_EVENT_COLUMNS, createFilterIndex } from './filter-index.js';
import { projectionStateStore } from './projection-state.store.js';
import {
  FILTER_INDEX_SHAPE,
  filterIndexTables,
  generationOf,
  projectionTables,
  type ProjectionTables,
} from './projection-tables.js';

const rows = async <T>(client: ClickHouseClient, query: string) =>
  (await client.query({ query, format: 'JSONEachRow' })).json<T>();

/** The names of the database's tables and views, as the answering server has them. */
const tableNames = async (client: ClickHouseClient) =>
  (
    await rows<{ name: string }>(client, 'SELECT name FROM system.tables WHERE database = currentDatabase()')
  ).map((r) => r.name);

/**
 * Which generations' filter index of the current shape is complete, and a backfill's progress
 * (0004_filter_index_shapes).
 */
export function filterIndexState(client: ClickHouseClient, shape = FILTER_INDEX_SHAPE) {
  const of = (generation: number) => `generation = ${sqlValue(generation)} AND shape = ${sqlValue(shape)}`;
  return {
    async ready(generation: number): Promise<boolean> {
      const found = await rows<{ n: string }>(
        client,
        `SELECT count() AS n FROM filter_index_shape_ready WHERE ${of(generation)}`,
      );
      return Number(found[0]?.n ?? 0) > 0;
    },
    async markReady(generation: number, at: number): Promise<void> {
      await client.insert({
        table: 'filter_index_shape_ready',
        format: 'JSONEachRow',
        values: [{ generation, shape, at }],
      });
    },
    async backfilled(generation: number): Promise<Set<number>> {
      const found = await rows<{ partition: string }>(
        client,
        `SELECT partition FROM filter_index_shape_backfill WHERE ${of(generation)}`,
      );
      return new Set(found.map((r) => Number(r.partition)));
    },
    async markBackfilled(generation: number, partition: number, events: number, at: number) {
      await client.insert({
        table: 'filter_index_shape_backfill',
        format: 'JSONEachRow',
        values: [{ generation, shape, partition, events, at }],
      });
    },
  };
}

export type FilterIndexState = ReturnType<typeof filterIndexState>;

async function isEmpty(client: ClickHouseClient, t: ProjectionTables): Promise<boolean> {
  const [row] = await rows<{ n: string }>(
    client,
    `SELECT count() AS n FROM (SELECT 1 FROM ${sqlIdentifier(t.events)} LIMIT 1)`,
  );
  return Number(row?.n ?? 0) === 0;
}

/**
 * Drops a generation's filter index of the shapes before the current one, once the current one is complete:
 * until then, the views of the old shape keep its index whole for the previous version's readers. Only what
 * exists is dropped, so that a start sends no statement to a cluster whose every node already lacks it.
 */
export async function dropOlderFilterIndexes(
  client: ClickHouseClient,
  schema: SchemaWriter,
  generation: number,
): Promise<void> {
  const existing = new Set(await tableNames(client));
  for (let shape = 1; shape < FILTER_INDEX_SHAPE; shape++) {
    const old = filterIndexTables(generation, shape);
    // The views first: a table a view still writes to cannot go.
    for (const name of [old.indexView, old.bucketsView, old.index, old.buckets]) {
      if (existing.has(name)) await schema.run(`DROP TABLE IF EXISTS ${sqlIdentifier(name)}`);
    }
  }
}

/**
 * Gives every generation's events table the columns the event's later versions added (ADDED_EVENT_COLUMNS), with
 * their defaults for the rows stored before: a generation copied into another, or read beside it, has the same
 * columns as the code.
 */
export async function ensureEventColumns(client: ClickHouseClient, schema: SchemaWriter): Promise<void> {
  for (const name of await tableNames(client)) {
    if (generationOf(name) !== null) await schema.addColumns(name, ADDED_EVENT_COLUMNS);
  }
}

/**
 * Gives the live generation its filter index. Once the index's views exist every insert fills it, so a
 * generation still empty then is complete from the start; one that already holds events needs
 * `ops backfill filter-index` before reads use the index (until then they read as before, only slower). A
 * complete index of the current shape replaces the older shapes' (dropOlderFilterIndexes).
 */
export async function ensureFilterIndex(
  client: ClickHouseClient,
  schema: SchemaWriter,
  now: () => number = Date.now,
): Promise<{ generation: number; ready: boolean }> {
  const { live } = await projectionStateStore(client).read();
  const tables = projectionTables(live);
  const state = filterIndexState(client);
  await createFilterIndex(schema, tables);
  if (!(await state.ready(live))) {
    if (!(await isEmpty(client, tables))) return { generation: live, ready: false };
    await state.markReady(live, now());
  }
  await dropOlderFilterIndexes(client, schema, live);
  return { generation: live, ready: true };
}
