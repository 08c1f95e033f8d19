import type { ClickHouseClient } from '@clickhouse/client';
import {
  clusterStatements,
  cloneStatements,
  distributed,
  localTable,
  type ClusterTopology,
} from './cluster-ddl.js';
import { sqlIdentifier, sqlValue } from './sql-quote.js';

/**
 * Runs the schema's statements, written for one server, on the server the client reaches or, rewritten
 * (cluster-ddl.ts), on its whole cluster. On a cluster a CREATE … IF NOT EXISTS of what the answering node has
 * already is not sent again: a statement ON CLUSTER waits for every node, so that a service starting while one
 * node is down would wait for it, though the node will apply every statement queued for it when it returns.
 */
export function schemaWriter(client: ClickHouseClient, where: { database: string; cluster?: string }) {
  const topology: ClusterTopology | null = where.cluster
    ? { cluster: where.cluster, database: where.database }
    : null;
  const run = async (queries: readonly string[]) => {
    for (const query of queries) {
      if (topology) await onEveryNode(client, query);
      else await client.command({ query });
    }
  };
  async function exists(statement: string): Promise<boolean> {
    const database = /^CREATE DATABASE IF NOT EXISTS `?(\w+)`?/.exec(statement);
    const table = /^CREATE (?:TABLE|MATERIALIZED VIEW) IF NOT EXISTS `?(\w+)`?/.exec(statement);
    if (!database && !table) return false;
    const query = database
      ? `SELECT count() AS n FROM system.databases WHERE name = ${sqlValue(database[1]!)}`
      : `SELECT count() AS n FROM system.tables WHERE database = ${sqlValue(where.database)}
           AND name = ${sqlValue(table![1]!)}`;
    const [row] = await (await client.query({ query, format: 'JSONEachRow' })).json<{ n: string }>();
    return Number(row?.n) > 0;
  }
  return {
    cluster: topology?.cluster,
    async run(statement: string): Promise<void> {
      if (!topology) return run([statement]);
      if (await exists(statement.trim())) return;
      await run(clusterStatements(statement, topology));
    },
    /**
     * Adds to `table` those of `columns` it lacks, each with its default for the rows stored before (ClickHouse
     * 18.16 has no ADD COLUMN IF NOT EXISTS). On a cluster the local table, then the Distributed one over it.
     */
    async addColumns(
      table: string,
      columns: readonly { name: string; type: string; default: string }[],
    ): Promise<void> {
      for (const target of topology ? [localTable(table), table] : [table]) {
        const found = await (
          await client.query({
            query: `SELECT name FROM system.columns WHERE database = ${sqlValue(where.database)}
              AND table = ${sqlValue(target)}`,
            format: 'JSONEachRow',
          })
        ).json<{ name: string }>();
        const have = new Set(found.map((c) => c.name));
        const missing = columns.filter((c) => !have.has(c.name));
        if (missing.length === 0) continue;
        if (topology && target === table) {
          // 18.16 refuses an ALTER ON CLUSTER of a table that is not replicated where the shards are: the
          // Distributed table holds no rows, so it is made again over its local table, which has the columns now.
          await run([
            `DROP TABLE IF EXISTS ${topology.database}.${table} ON CLUSTER ${topology.cluster}`,
            distributed(topology, table),
          ]);
          continue;
        }
        const adds = missing.map((c) => `ADD COLUMN ${sqlIdentifier(c.name)} ${c.type} DEFAULT ${c.default}`);
        await run([
          topology
            ? `ALTER TABLE ${topology.database}.${target} ON CLUSTER ${topology.cluster} ${adds.join(', ')}`
            : `ALTER TABLE ${sqlIdentifier(target)} ${adds.join(', ')}`,
        ]);
      }
    },
    /** A new table `name` shaped as `like` is: its columns, engine, keys and settings. */
    async clone(like: string, name: string): Promise<void> {
      if (!topology) return run([`CREATE TABLE ${sqlIdentifier(name)} AS ${sqlIdentifier(like)}`]);
      const [shown] = await (
        await client.query({
          query: `SHOW CREATE TABLE ${sqlIdentifier(localTable(like))}`,
          format: 'JSONEachRow',
        })
      ).json<{ statement: string }>();
      await run(cloneStatements(shown!.statement, like, name, topology));
    },
  };
}

/**
 * Runs a statement ON CLUSTER to its end. The server answers with a row per node as each applies it: the request
 * ends only once every node has (or the server's `distributed_ddl_task_timeout` ran out, an error), whereas a
 * plain command returns at the first row, before the others, and the next statement may find the table missing.
 */
export async function onEveryNode(client: ClickHouseClient, query: string): Promise<void> {
  const { stream } = await client.exec({ query, clickhouse_settings: { default_format: 'JSONEachRow' } });
  let body = '';
  for await (const chunk of stream) body += String(chunk);
  for (const line of body.split('\n').filter((l) => l.trim() !== '')) {
    // An error after the first rows (a node that did not answer in time) comes as text in the body.
    if (!line.startsWith('{')) throw new Error(`ClickHouse: ${line.slice(0, 500)}`);
    const host = JSON.parse(line) as { host: string; port: number; status: string | number; error: string };
    if (Number(host.status) !== 0)
      throw new Error(`ClickHouse node ${host.host}:${host.port}: ${host.error}`);
  }
}

export type SchemaWriter = ReturnType<typeof schemaWriter>;
