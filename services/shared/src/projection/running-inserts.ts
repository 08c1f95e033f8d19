import type { ClickHouseClient } from '@clickhouse/client';
import { sqlValue } from '../clickhouse/sql-quote.js';
import { insertQueryPrefix } from './projection-tables.js';

/**
 * How many of the projection's inserts by `writer` still run in ClickHouse (from any process: a request given
 * up on by its client runs on in the server).
 */
export async function runningInserts(
  client: ClickHouseClient,
  database: string,
  writer: 'live' | 'replay',
): Promise<number> {
  const result = await client.query({
    query: `SELECT count() AS n FROM system.processes
      WHERE query_id LIKE ${sqlValue(`${insertQueryPrefix(database, writer)}%`)}`,
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ n: string }>();
  return Number(row?.n ?? 0);
}
