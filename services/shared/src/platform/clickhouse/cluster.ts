import type { ClickHouseClient, ClickHouseSettings as QuerySettings } from '@clickhouse/client';
import { sqlValue } from './sql-quote.js';

/**
 * What the projector's correctness needs from a ClickHouse cluster or ClickHouse Cloud, where one insert reaches
 * one replica and a later query may reach another (docs/operations.md "ClickHouse cluster"). On a single server
 * (no cluster configured) every part of it is empty: nothing changes.
 */
export interface ClusterGuard {
  insertSettings: QuerySettings;
  readSettings: QuerySettings;
  /** Every replica's running queries: each replica lists only its own, and an insert may run on any of them. */
  processes: string;
  /** Every replica's replicated tables (`system.replicas`), whose pending quorums a check waits for. */
  replicas: string | null;
}

export const SINGLE_SERVER: ClusterGuard = {
  insertSettings: {},
  readSettings: {},
  processes: 'system.processes',
  replicas: null,
};

/** What a cluster's servers say of themselves, read once at start. */
export interface ClusterFacts {
  cluster: string;
  /** The most replicas any shard of the cluster has. */
  replicas: number;
  /** Every replica's native address, host:port. */
  hosts: string[];
  /** The engine knows `insert_quorum_parallel` (20.x and later; 18.16 runs one quorum insert at a time anyway). */
  quorumParallelSetting: boolean;
  /** The engine has the table function `clusterAllReplicas` (20.x and later). */
  allReplicasFunction: boolean;
}

/**
 * How long a quorum insert waits for its replicas before it fails (code 319, retried): below the client's request
 * timeout (createClickHouse), so that an insert a replica's death left waiting ends in the server before its retry
 * looks for running inserts, rather than holding the partition for the server's default ten minutes.
 */
export const QUORUM_TIMEOUT_MS = 20_000;

/**
 * The guard for a cluster: a majority quorum, written out as a number (18.16 reads `insert_quorum = 'auto'` over
 * HTTP as 0, no quorum at all), so that the duplicate check can insist on every acknowledged insert; the first
 * live replica of each shard for both (`in_order`), so that the check seldom meets a replica still fetching.
 */
export function clusterGuardOf(facts: ClusterFacts): ClusterGuard {
  const quorum = Math.floor(facts.replicas / 2) + 1;
  const everyReplica = (table: string) =>
    facts.allReplicasFunction
      ? `clusterAllReplicas(${sqlValue(facts.cluster)}, system.${table})`
      : `remote(${sqlValue(facts.hosts.join(','))}, system, ${table})`;
  return {
    insertSettings: {
      insert_quorum: String(quorum),
      insert_quorum_timeout: QUORUM_TIMEOUT_MS,
      ...(facts.quorumParallelSetting ? { insert_quorum_parallel: 0 } : {}),
      load_balancing: 'in_order',
    },
    readSettings: { select_sequential_consistency: '1', load_balancing: 'in_order' },
    processes: everyReplica('processes'),
    replicas: everyReplica('replicas'),
  };
}

const rows = async <T>(client: ClickHouseClient, query: string) =>
  (await client.query({ query, format: 'JSONEachRow' })).json<T>();

/** Reads the cluster's shape and the engine's abilities; a cluster the server does not know is an error. */
export async function clusterFacts(client: ClickHouseClient, cluster: string): Promise<ClusterFacts> {
  const [shape] = await rows<{ replicas: number; hosts: string[] }>(
    client,
    `SELECT max(replica_num) AS replicas, groupArray(concat(host_address, ':', toString(port))) AS hosts
     FROM system.clusters WHERE cluster = ${sqlValue(cluster)}`,
  );
  if (!shape || Number(shape.replicas) === 0) {
    throw new Error(`ClickHouse knows no cluster named ${JSON.stringify(cluster)} (CLICKHOUSE_CLUSTER)`);
  }
  const [abilities] = await rows<{ parallel: number; all_replicas: number }>(
    client,
    `SELECT
       (SELECT count() FROM system.settings WHERE name = 'insert_quorum_parallel') AS parallel,
       (SELECT count() FROM system.table_functions WHERE name = 'clusterAllReplicas') AS all_replicas`,
  );
  return {
    cluster,
    replicas: Number(shape.replicas),
    hosts: shape.hosts,
    quorumParallelSetting: Number(abilities?.parallel) > 0,
    allReplicasFunction: Number(abilities?.all_replicas) > 0,
  };
}

/** The guard for the server or cluster the client reaches. */
export async function clusterGuard(client: ClickHouseClient, cluster?: string): Promise<ClusterGuard> {
  return cluster ? clusterGuardOf(await clusterFacts(client, cluster)) : SINGLE_SERVER;
}
