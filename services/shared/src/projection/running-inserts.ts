import type { ClickHouseClient } from '@clickhouse/client';
import { sqlValue } from '../clickhouse/sql-quote.js';
import { clusterGuard } from '../clickhouse/cluster.js';
import { insertQueryPrefix } from './projection-tables.js';

/**
 * How many of the projection's inserts by `writer` still run in ClickHouse (from any process: a request given
 * up on by its client runs on in the server), on every replica of `cluster` when there is one.
 */
export async function runningInserts(
  client: ClickHouseClient,
  database: string,
  writer: 'live' | 'replay',
  cluster?: string,
): Promise<number> {
  const result = await client.query({
    query: `SELECT count() AS n FROM ${clusterGuard(cluster).processes}
      WHERE query_id LIKE ${sqlValue(`${insertQueryPrefix(database, writer)}%`)}`,
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ n: string }>();
  return Number(row?.n ?? 0);
}
