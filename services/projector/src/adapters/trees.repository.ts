import type pg from 'pg';
import { type AuditEventRecord } from '@audit/shared/contract';
import { frontierOf } from '@audit/shared/integrity';
import { inTransaction } from '@audit/shared/platform';
import { planAppend } from '../domain/append-plan.js';
import { idKey } from '../domain/project-batch.js';
import { recordLeafHash } from '../domain/record-leaf.js';
import {
  eventsToAppend,
  runKey,
  type PartitionRun,
  type TopicPartition,
  type TreeBatch,
} from '../domain/tree-batch.js';
import { copyLeaves, isKnownLeafError } from './leaves.copy.js';

export interface AppendOutcome {
  /** Leaves added, over all tenants. */
  appended: number;
  /** Events that were leaves already (a redelivery, a re-sent event, a batch redone after a crash). */
  known: number;
  /** Partitions whose trees are behind the write, left out of it (tree-batch.ts eventsToAppend). */
  behind: TopicPartition[];
}

/**
 * Gives leaves appended before they had a time (migration 0017; a tile of their own since migration 0020) the time
 * of their event, when this write holds the very event the leaf is (its leaf hash): reading the topic again (its
 * positions moved back, docs/operations.md "Integrity") fills them all.
 */
async function giveTimes(
  db: Pick<pg.PoolClient, 'query'>,
  events: readonly AuditEventRecord[],
  treeIds: ReadonlyMap<string, string>,
  found: readonly { tenant_id: string; event_id: string; leaf_index: string; untimed: Buffer | null }[],
): Promise<void> {
  const untimed = new Map(found.filter((r) => r.untimed).map((r) => [idKey(r), r]));
  if (untimed.size === 0) return;
  const timed = events.flatMap((e) => {
    const leaf = untimed.get(idKey(e));
    return leaf?.untimed!.equals(recordLeafHash(e)) ? [{ leaf_index: leaf.leaf_index, event: e }] : [];
  });
  if (timed.length === 0) return;
  await db.query(
    `UPDATE integrity_tiles t SET times = int8send(b.ts), min_ts = b.ts, max_ts = b.ts
     FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS b (tree_id, leaf_index, ts)
     WHERE t.tree_id = b.tree_id AND t.first_index = b.leaf_index AND t.times IS NULL`,
    [
      timed.map((t) => treeIds.get(t.event.tenant_id)),
      timed.map((t) => t.leaf_index),
      timed.map((t) => t.event.timestamp),
    ],
  );
}

/**
 * Appends a write's events to their tenants' trees and moves its partitions' positions, in one transaction: the
 * write is added whole or not at all, and a write done again adds nothing. Almost every write is only new events,
 * so it is first written without looking its events up; one that holds a leaf already (a re-sent event, a write
 * redone after a crash) fails on the event-id key, and is done again with every event looked up.
 */
export async function appendToTrees(
  pool: pg.Pool,
  batch: TreeBatch,
  now: () => number = Date.now,
): Promise<AppendOutcome> {
  if (batch.runs.length === 0) return { appended: 0, known: 0, behind: [] };
  const attempt = (lookUp: boolean) =>
    inTransaction(pool, async (db) => {
      const { events, behind } = eventsToAppend(batch, await lockPositions(db, batch.runs));
      const appended = await append(db, events, now, lookUp);
      const left = new Set(behind.map(runKey));
      const moved = batch.runs.filter((r) => !left.has(runKey(r)));
      await db.query(
        `UPDATE integrity_positions p SET next_offset = greatest(p.next_offset, r.next_offset)
         FROM unnest($1::text[], $2::int[], $3::bigint[]) AS r (topic, partition, next_offset)
         WHERE p.topic = r.topic AND p.partition = r.partition`,
        [
          moved.map((r) => r.topic),
          moved.map((r) => r.partition),
          moved.map((r) => (r.last + 1n).toString()),
        ],
      );
      return { appended, known: events.length - appended, behind };
    });
  try {
    return await attempt(false);
  } catch (err) {
    if (!isKnownLeafError(err)) throw err;
  }
  return attempt(true);
}

/** The runs' partitions' positions (by runKey), locked (in topic and partition order) until the transaction ends. */
async function lockPositions(db: pg.PoolClient, runs: readonly PartitionRun[]): Promise<Map<string, bigint>> {
  const { rows } = await db.query<{ topic: string; partition: number; next_offset: string }>(
    `SELECT p.topic, p.partition, p.next_offset FROM integrity_positions p
     JOIN unnest($1::text[], $2::int[]) AS r (topic, partition) ON p.topic = r.topic AND p.partition = r.partition
     ORDER BY p.topic, p.partition FOR UPDATE OF p`,
    [runs.map((r) => r.topic), runs.map((r) => r.partition)],
  );
  return new Map(rows.map((r) => [runKey(r), BigInt(r.next_offset)]));
}

/**
 * The events' append in a transaction, returning how many became leaves. Each tenant's tree row is locked (in tenant order, so that two batches
 * never wait on each other in a cycle) before its leaves are written or looked up: a batch handled twice at once,
 * by an old and a new owner of a partition, goes through one after the other.
 */
async function append(
  db: pg.PoolClient,
  events: readonly AuditEventRecord[],
  now: () => number,
  lookUp: boolean,
): Promise<number> {
  if (events.length === 0) return 0;
  const tenants = [...new Set(events.map((e) => e.tenant_id))].sort();
  // Only the tenants without a tree: an insert that conflicts would still take a tree number.
  await db.query(
    `INSERT INTO integrity_trees (tenant_id)
     SELECT t FROM unnest($1::text[]) AS t WHERE NOT EXISTS (SELECT 1 FROM integrity_trees WHERE tenant_id = t)
     ORDER BY 1 ON CONFLICT DO NOTHING`,
    [tenants],
  );
  const rows = await db.query<{ tenant_id: string; tree_id: string; size: string; frontier: Buffer }>(
    `SELECT tenant_id, tree_id, size, frontier FROM integrity_trees WHERE tenant_id = ANY($1::text[])
     ORDER BY tenant_id FOR UPDATE`,
    [tenants],
  );
  const trees = new Map(rows.rows.map((r) => [r.tenant_id, frontierOf(r.size, r.frontier)]));
  // Leaves and subtrees are keyed by the tree's number (migration 0019), the tenant's id only here.
  const treeIds = new Map(rows.rows.map((r) => [r.tenant_id, r.tree_id]));
  const treeIdOf = (tenant: string) => treeIds.get(tenant)!;
  const known = lookUp ? await knownLeaves(db, events, treeIds) : new Set<string>();
  const plan = planAppend(events, trees, known);
  if (plan.leaves.length === 0) return 0;
  await copyLeaves(db, plan.leaves, treeIdOf);
  if (plan.subtrees.length > 0) {
    await db.query(
      `INSERT INTO integrity_subtrees (tree_id, level, node_index, hash)
       SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::bigint[], $4::bytea[])`,
      [
        plan.subtrees.map((s) => treeIdOf(s.tenant_id)),
        plan.subtrees.map((s) => s.level),
        plan.subtrees.map((s) => s.index),
        plan.subtrees.map((s) => Buffer.from(s.hash)),
      ],
    );
  }
  const grown = [...plan.trees];
  await db.query(
    // unsigned_since: when the first leaf no checkpoint covers was appended (the checkpoint cadence).
    `UPDATE integrity_trees t SET size = g.size, frontier = g.frontier, updated_at = now(),
       unsigned_since = coalesce(t.unsigned_since, $4)
     FROM unnest($1::text[], $2::bigint[], $3::bytea[]) AS g (tenant_id, size, frontier)
     WHERE t.tenant_id = g.tenant_id`,
    [
      grown.map(([tenant]) => tenant),
      grown.map(([, f]) => f.size),
      grown.map(([, f]) => Buffer.concat(f.hashes)),
      now(),
    ],
  );
  return plan.leaves.length;
}

/** The batch's events that are leaves already (by idKey); leaves of before migration 0017 get their times. */
async function knownLeaves(
  db: pg.PoolClient,
  events: readonly AuditEventRecord[],
  treeIds: ReadonlyMap<string, string>,
): Promise<Set<string>> {
  const tenantsOf = new Map([...treeIds].map(([tenant, tree]) => [tree, tenant]));
  // An untimed leaf is alone in its tile (migration 0020), so its tile's hashes are its hash.
  const { rows } = await db.query<{
    tree_id: string;
    event_id: string;
    leaf_index: string;
    untimed: Buffer | null;
  }>(
    `SELECT k.tree_id, k.event_id::text, k.leaf_index, t.leaf_hashes AS untimed
     FROM unnest($1::bigint[], $2::uuid[]) AS b (tree_id, event_id)
     JOIN integrity_leaf_events k USING (tree_id, event_id)
     LEFT JOIN integrity_tiles t ON t.tree_id = k.tree_id AND t.first_index = k.leaf_index AND t.times IS NULL`,
    [events.map((e) => treeIds.get(e.tenant_id)), events.map((e) => e.event_id)],
  );
  const found = rows.map((r) => ({ ...r, tenant_id: tenantsOf.get(r.tree_id)! }));
  await giveTimes(db, events, treeIds, found);
  return new Set(found.map((r) => idKey(r)));
}
