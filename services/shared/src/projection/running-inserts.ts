import type { ClickHouseClient } from '@clickhouse/client';
import { sqlValue } from '../platform/clickhouse/sql-quote.js';
import { SINGLE_SERVER, type ClusterGuard } from '../platform/clickhouse/cluster.js';
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

/**
 * How many quorum inserts into the database's replicated tables have not met their quorum yet (docs/operations.md
 * "Exactly once on a cluster"). Such an insert failed for its client (the quorum timed out, ZooKeeper's session
 * expired) but its part stays on the replica that wrote it, hidden from reads with sequential consistency until
 * another replica fetches it, and then appears: a check for stored events that ran meanwhile would store them a
 * second time. None on one server. Where ZooKeeper's table cannot be read (ClickHouse Cloud, which has no such
 * quorum), nothing is known to be pending.
 */
export async function pendingQuorums(
  client: ClickHouseClient,
  database: string,
  guard: ClusterGuard = SINGLE_SERVER,
): Promise<number> {
  if (!guard.replicas) return 0;
  const rows = async <T>(query: string) => (await client.query({ query, format: 'JSONEachRow' })).json<T>();
  const paths = await rows<{ path: string }>(
    `SELECT DISTINCT zookeeper_path AS path FROM ${guard.replicas} WHERE database = ${sqlValue(database)}`,
  );
  let pending = 0;
  for (const { path } of paths) {
    // One path a query: ClickHouse 18.16 reads system.zookeeper only for a path given with `=`.
    const [row] = await rows<{ n: string }>(
      `SELECT count() AS n FROM system.zookeeper WHERE path = ${sqlValue(`${path}/quorum`)} AND name = 'status'`,
    ).catch(() => [{ n: '0' }]);
    pending += Number(row?.n ?? 0);
  }
  return pending;
}
