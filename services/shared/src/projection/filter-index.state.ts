import type { ClickHouseClient } from '@clickhouse/client';
import type { SchemaWriter } from '../platform/clickhouse/schema-writer.js';
import { sqlIdentifier, sqlValue } from '../platform/clickhouse/sql-quote.js';
import { createFilterIndex } from './filter-index.js';
import { projectionStateStore } from './projection-state.store.js';
import { projectionTables, type ProjectionTables } from './projection-tables.js';

const rows = async <T>(client: ClickHouseClient, query: string) =>
  (await client.query({ query, format: 'JSONEachRow' })).json<T>();

/** Which generations' filter index is complete, and a backfill's progress (0003_filter_index_state). */
export function filterIndexState(client: ClickHouseClient) {
  return {
    async ready(generation: number): Promise<boolean> {
      const found = await rows<{ n: string }>(
        client,
        `SELECT count() AS n FROM filter_index_ready WHERE generation = ${sqlValue(generation)}`,
      );
      return Number(found[0]?.n ?? 0) > 0;
    },
    async markReady(generation: number, at: number): Promise<void> {
      await client.insert({
        table: 'filter_index_ready',
        format: 'JSONEachRow',
        values: [{ generation, at }],
      });
    },
    async backfilled(generation: number): Promise<Set<number>> {
      const found = await rows<{ partition: string }>(
        client,
        `SELECT partition FROM filter_index_backfill WHERE generation = ${sqlValue(generation)}`,
      );
      return new Set(found.map((r) => Number(r.partition)));
    },
    async markBackfilled(generation: number, partition: number, events: number, at: number) {
      await client.insert({
        table: 'filter_index_backfill',
        format: 'JSONEachRow',
        values: [{ generation, partition, events, at }],
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
 * Gives the live generation its filter index. Once the index's views exist every insert fills it, so a
 * generation still empty then is complete from the start; one that already holds events needs
 * `ops backfill filter-index` before reads use the index (until then they read as before, only slower).
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
  if (await state.ready(live)) return { generation: live, ready: true };
  if (!(await isEmpty(client, tables))) return { generation: live, ready: false };
  await state.markReady(live, now());
  return { generation: live, ready: true };
}
