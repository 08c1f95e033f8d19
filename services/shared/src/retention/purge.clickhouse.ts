import { randomUUID } from 'node:crypto';
import {
  clickhouseErrorCode,
  localTable,
  sleep,
  sqlIdentifier,
  sqlValue,
  type ClickHouseClient,
  type ClusterGuard,
} from '../platform/index.js';
import {
  BUCKET_MS,
  bucketRowsQuery,
  EVENTS_PARTITION_MS,
  existingGenerations,
  INDEX_PARTITION_MS,
  MAX_PARTITIONS_PER_INSERT,
  projectionTables,
  type ProjectionTables,
} from '../projection/index.js';

const MUTATION_POLL_MS = 200;
// A deletion's mutation rewrites every part that holds a matching row; past this it is called stuck, and the run
// fails (ClickHouse goes on with it; the next run waits for it again).
const MUTATION_DEADLINE_MS = 3 * 3600 * 1000;

/** A table a purge deletes rows from, and the span of its partitions (`PARTITION BY intDiv(ts, partitionMs)`). */
export interface DeletionTarget {
  table: string;
  partitionMs: number;
}

/** An events table, and its generation's filter index and summary of the current shape where it has them. */
export interface PurgeTarget {
  events: string;
  index: Pick<ProjectionTables, 'index' | 'buckets'> | null;
}

/** The tables of a target whose rows a purge deletes: the events table, and the filter index where it has one. */
export const deletionTargets = (t: PurgeTarget): DeletionTarget[] => [
  { table: t.events, partitionMs: EVENTS_PARTITION_MS },
  ...(t.index === null ? [] : [{ table: t.index.index, partitionMs: INDEX_PARTITION_MS }]),
];

const rows = async <T>(client: ClickHouseClient, query: string) =>
  (await client.query({ query, format: 'JSONEachRow' })).json<T>();

/**
 * The tables a purge acts on: every generation's events table, and its filter index and summary of the current
 * shape. An older shape's tables live only while an upgrade builds the new one (docs/operations.md "Backfilling the
 * filter index"), and go with it. The by-id table keeps its rows (an id and a time, no field of the event), as the
 * tree keeps the event's hash: they tell a purged event from one never stored, and keep a redelivered one from being
 * stored again.
 */
export async function purgeTables(client: ClickHouseClient, database: string): Promise<PurgeTarget[]> {
  const [generations, names] = await Promise.all([
    existingGenerations(client, database),
    rows<{ name: string }>(client, `SELECT name FROM system.tables WHERE database = ${sqlValue(database)}`),
  ]);
  const present = new Set(names.map((r) => r.name));
  return generations.map(projectionTables).map((t) => ({
    events: t.events,
    index: present.has(t.index) && present.has(t.buckets) ? { index: t.index, buckets: t.buckets } : null,
  }));
}

/** How many of the events table's rows satisfy `where`. */
export async function countWhere(client: ClickHouseClient, table: string, where: string): Promise<number> {
  const [row] = await rows<{ n: string }>(
    client,
    `SELECT count() AS n FROM ${sqlIdentifier(table)} WHERE ${where}`,
  );
  return Number(row?.n ?? 0);
}

const unfinished = (client: ClickHouseClient, table: string) =>
  rows<{ mutation_id: string }>(
    client,
    `SELECT mutation_id FROM system.mutations
      WHERE database = currentDatabase() AND table = ${sqlValue(table)} AND is_done = 0`,
  );

const mutationIds = async (client: ClickHouseClient, table: string) =>
  new Set(
    (
      await rows<{ mutation_id: string }>(
        client,
        `SELECT mutation_id FROM system.mutations
          WHERE database = currentDatabase() AND table = ${sqlValue(table)}`,
      )
    ).map((r) => r.mutation_id),
  );

/**
 * Deletes the table's rows that satisfy `where`, and waits until its mutation is done: ClickHouse runs it in the
 * background (18.16 has no `mutations_sync`; current versions run it so too unless asked), part by part, and a
 * part's rows are gone once it is rewritten. Only the mutations this call made are waited for, not another's.
 * The replaced parts leave the disk after the server's `old_parts_lifetime`.
 */
export async function deleteWhere(
  client: ClickHouseClient,
  table: string,
  where: string,
  now: () => number = Date.now,
): Promise<void> {
  const before = await mutationIds(client, table);
  await client.command({ query: `ALTER TABLE ${sqlIdentifier(table)} DELETE WHERE ${where}` });
  const deadline = now() + MUTATION_DEADLINE_MS;
  for (;;) {
    const ours = (await unfinished(client, table)).filter((m) => !before.has(m.mutation_id));
    if (ours.length === 0) return;
    if (now() > deadline) {
      throw new Error(`the deletion from ${table} did not finish in ${MUTATION_DEADLINE_MS / 3_600_000} h`);
    }
    await sleep(MUTATION_POLL_MS);
  }
}

/** Deletes a table's rows that satisfy a condition, and returns once they are gone from every copy it has. */
export type RowDeleter = (target: DeletionTarget, where: string) => Promise<void>;

/** On one server: a mutation of the table itself. */
export const serverDeleter =
  (client: ClickHouseClient, now: () => number = Date.now): RowDeleter =>
  ({ table }, where) =>
    deleteWhere(client, table, where, now);

/** What a replica says of one mutation: absent until its queue took it up, then whether it is done. */
async function mutationDone(client: ClickHouseClient, table: string, marker: string): Promise<boolean> {
  const [row] = await rows<{ done: string }>(
    client,
    `SELECT min(is_done) AS done, count() AS n FROM system.mutations
      WHERE database = currentDatabase() AND table = ${sqlValue(table)} AND position(command, ${sqlValue(marker)}) > 0
     HAVING n > 0`,
  );
  return row !== undefined && Number(row.done) === 1;
}

// Another quorum insert into the table has not reached its replicas yet: 18.16 runs one at a time per shard.
const QUORUM_BUSY = 286;
const QUORUM_BUSY_WAIT_MS = 200;

/** The tenant no API can name: the cluster deleter's rows for 18.16 (releaseQuorumParts). */
const RESERVED_TENANT = "tenant_id = ''";

/**
 * ClickHouse 18.16 never mutates the last part a quorum insert wrote into a partition (it holds that part may yet
 * be lost with a replica); current versions wait only for a quorum insert still running. Once the projector wrote a
 * partition, the partition has such a part, so a deletion there would never end. After the deletion's `ALTER`, one
 * row of the reserved tenant '' is written into each partition the shard's replicas have, with the projector's
 * quorum: its part is newer than the mutation, which then reaches every older part. The next deletion takes these
 * rows with its own, so at most one per partition of each table stays (docs/retention.md "On a cluster").
 */
async function releaseQuorumParts(
  replicas: readonly ClickHouseClient[],
  target: DeletionTarget,
  marker: string,
  settings: ClusterGuard['insertSettings'],
  deadline: number,
  now: () => number,
): Promise<void> {
  const local = localTable(target.table);
  const partitions = new Set<string>();
  for (const replica of replicas) {
    const found = await rows<{ partition: string }>(
      replica,
      `SELECT DISTINCT partition FROM system.parts
        WHERE database = currentDatabase() AND table = ${sqlValue(local)} AND active`,
    );
    for (const { partition } of found) partitions.add(partition);
  }
  const starts = [...partitions].map((p) => Number(p) * target.partitionMs);
  for (let at = 0; at < starts.length; at += MAX_PARTITIONS_PER_INSERT) {
    const values = starts
      .slice(at, at + MAX_PARTITIONS_PER_INSERT)
      .map((ts) => `('', ${sqlValue(ts)}, '', ${sqlValue(marker)})`)
      .join(', ');
    for (;;) {
      try {
        await replicas[0]!.command({
          query: `INSERT INTO ${sqlIdentifier(local)} (tenant_id, ts, event_id, details) VALUES ${values}`,
          clickhouse_settings: settings,
        });
        break;
      } catch (err) {
        if (clickhouseErrorCode(err) !== QUORUM_BUSY || now() > deadline) throw err;
        await sleep(QUORUM_BUSY_WAIT_MS);
      }
    }
  }
}

/**
 * On a cluster (docs/retention.md "On a cluster"): a table's rows live in its local table on each shard, and a
 * mutation of a replicated table, made on one replica, reaches the shard's other replicas through ZooKeeper. So
 * the deletion is made on the first node given of each shard, and waited for on every node given: each names it by
 * a marker of its own in its condition, since a replica takes a mutation up a moment after it was made. Not with
 * `ON CLUSTER`, whose DDL worker ClickHouse 18.16 can lose when both replicas of a shard take up one `ALTER`
 * (infra/cluster/README.md "Faults of 18.16"). A node that does not answer fails the deletion: its rows would stay.
 * `settings` are the projector's quorum inserts' (clusterGuard).
 */
export function clusterDeleter(
  nodes: readonly ClickHouseClient[],
  settings: ClusterGuard['insertSettings'],
  now: () => number = Date.now,
): RowDeleter {
  let shards: Promise<ClickHouseClient[][]> | undefined;
  const shardsOf = async () => {
    const found = new Map<string, ClickHouseClient[]>();
    for (const node of nodes) {
      const [macro] = await rows<{ substitution: string }>(
        node,
        "SELECT substitution FROM system.macros WHERE macro = 'shard'",
      );
      if (!macro) throw new Error('a node of CLICKHOUSE_NODE_URLS has no `shard` macro');
      found.set(macro.substitution, [...(found.get(macro.substitution) ?? []), node]);
    }
    return [...found.values()];
  };
  return async (target, where) => {
    shards ??= shardsOf().catch((err: unknown) => {
      shards = undefined;
      throw err;
    });
    const local = localTable(target.table);
    const marker = `purge-${randomUUID()}`;
    const deadline = now() + MUTATION_DEADLINE_MS;
    const replicaSets = await shards;
    for (const replicas of replicaSets) {
      await replicas[0]!.command({
        query: `ALTER TABLE ${sqlIdentifier(local)}
          DELETE WHERE ((${where}) OR ${RESERVED_TENANT}) AND ${sqlValue(marker)} != ''`,
      });
      await releaseQuorumParts(replicas, target, marker, settings, deadline, now);
    }
    for (const replica of replicaSets.flat()) {
      while (!(await mutationDone(replica, local, marker))) {
        if (now() > deadline) {
          throw new Error(
            `the deletion from ${local} did not finish in ${MUTATION_DEADLINE_MS / 3_600_000} h`,
          );
        }
        await sleep(MUTATION_POLL_MS);
      }
    }
  };
}

/**
 * Sets the summary's counts of the tenant's hours before `purgedBefore` (a whole hour) to what the events table
 * holds there once the purge has removed its rows: the events holds kept. One insert of the differences, each
 * (dimension, value, hour) once, so that no count is ever below its events while it lands: a filtered page skips
 * the hours the summary counts empty, and only counts too high are harmless (docs/architecture.md "Read path").
 */
export async function settleBuckets(
  client: ClickHouseClient,
  t: Pick<ProjectionTables, 'events' | 'buckets'>,
  tenant: string,
  purgedBefore: number,
  settings: ClusterGuard['insertSettings'] = {},
): Promise<void> {
  const ofTenant = `tenant_id = ${sqlValue(tenant)}`;
  const before = purgedBefore / BUCKET_MS;
  await client.command({
    query: `INSERT INTO ${sqlIdentifier(t.buckets)} (tenant_id, dim, value, bucket, n)
      SELECT tenant_id, dim, value, bucket, sum(delta) AS n FROM (
        SELECT tenant_id, toUInt8(dim) AS dim, value, toInt64(bucket) AS bucket, toInt64(-sum(n)) AS delta
          FROM ${sqlIdentifier(t.buckets)}
         WHERE ${ofTenant} AND bucket < ${sqlValue(before)} GROUP BY tenant_id, dim, value, bucket
        UNION ALL
        SELECT tenant_id, toUInt8(dim) AS dim, value, toInt64(bucket) AS bucket, toInt64(n) AS delta
          FROM (${bucketRowsQuery(t.events, `${ofTenant} AND ts < ${sqlValue(purgedBefore)}`)})
      ) GROUP BY tenant_id, dim, value, bucket HAVING n != 0`,
    clickhouse_settings: settings,
  });
}
