import type { ClickHouseSettings as QuerySettings } from '@clickhouse/client';
import { sqlValue } from './sql-quote.js';

/**
 * What the projector's correctness needs from a ClickHouse cluster or ClickHouse Cloud, where one insert reaches
 * one replica and a later query may reach another (docs/operations.md "ClickHouse cluster or Cloud"). On a single
 * server (no cluster configured) every part of it is empty: nothing changes.
 */
export function clusterGuard(cluster: string | undefined): {
  insertSettings: QuerySettings;
  readSettings: QuerySettings;
  processes: string;
} {
  if (!cluster) return { insertSettings: {}, readSettings: {}, processes: 'system.processes' };
  return {
    // Acknowledged once a majority of replicas has the part, one insert at a time, so that the read below can
    // insist on having every acknowledged insert.
    insertSettings: { insert_quorum: 'auto', insert_quorum_parallel: 0 },
    // The duplicate check must see every insert acknowledged before it, or a redelivered event is stored twice.
    readSettings: { select_sequential_consistency: '1' },
    // Each replica lists only its own queries: an insert still running may run on any of them.
    processes: `clusterAllReplicas(${sqlValue(cluster)}, system.processes)`,
  };
}

export type ClusterGuard = ReturnType<typeof clusterGuard>;
