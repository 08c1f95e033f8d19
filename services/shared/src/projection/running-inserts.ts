import type { ClickHouseClient } from '@clickhouse/client';
import { sqlValue } from '../clickhouse/sql-quote.js';
import { SINGLE_SERVER, type ClusterGuard } from '../clickhouse/cluster.js';
import { insertQueryPrefix } from './projection-tables.js';

/**
 * How many of the projection's inserts by `writer` still run in ClickHouse (from any process: a request given
 * up on by its client runs on in the server), on every replica of a cluster when there is one. On a cluster an
 * insert through a `Distributed` table runs on as queries of other nodes, which carry our id as their initial one.
 */
export async function runningInserts(
  client: ClickHouseClient,
  database: string,
  writer: 'live' | 'replay',
  guard: ClusterGuard = SINGLE_SERVER,
): Promise<number> {
  const ours = sqlValue(`${insertQueryPrefix(database, writer)}%`);
  const result = await client.query({
    query: `SELECT count() AS n FROM ${guard.processes}
      WHERE query_id LIKE ${ours} OR initial_query_id LIKE ${ours}`,
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ n: string }>();
  return Number(row?.n ?? 0);
}
