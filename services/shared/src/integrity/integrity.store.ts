import type pg from 'pg';
import { integrityKeysRepository } from './integrity-keys.repository.js';
import { leafTilesRepository, TREE_OF_TENANT } from './leaf-tiles.repository.js';
import { laterInWindow, windowLeaves, type Leaf, type TimeWindow, type WindowLeaf } from './window-leaves.js';
import { rootOf } from '@audit-trail/integrity-verifier';
import {
  consistencyRanges,
  coverRanges,
  inclusionRanges,
  hashOfSubtrees,
  subtreesOf,
  STORED_LEVEL_STEP,
  type LeafRange,
  type Subtree,
} from './proof-ranges.js';

export interface StoredCheckpoint {
  tree_size: number;
  root_hash: Buffer;
  made_at: number;
  key_name: string;
  note: string;
}

/** A tree's store is missing hashes a proof of a checkpointed size needs: damaged, never the client's doing. */
export class TreeStoreDamagedError extends Error {
  override name = 'TreeStoreDamagedError';
}

type Db = Pick<pg.Pool, 'query'>;

const CHECKPOINT_COLUMNS = 'tree_size, root_hash, made_at, key_name, note';
const checkpointOf = (
  r: { tree_size: string; made_at: string } & Omit<StoredCheckpoint, 'tree_size' | 'made_at'>,
) => ({
  ...r,
  tree_size: Number(r.tree_size),
  made_at: Number(r.made_at),
});

/**
 * The hashes of complete subtrees of a tenant's tree, each made from the stored band at or below its level: a
 * subtree of level L is the root of the 2^(L mod STORED_LEVEL_STEP) stored hashes of level L - L mod
 * STORED_LEVEL_STEP under it (leaf hashes for the lowest band), or with `below`, of the 2^STORED_LEVEL_STEP of
 * the band under that. Returned in the order asked.
 */
async function subtreeHashes(
  db: Db,
  tenant: string,
  subtrees: readonly Subtree[],
  below = false,
): Promise<Uint8Array[]> {
  const plans = subtrees.map((s) => {
    const base = below ? s.level - STORED_LEVEL_STEP : s.level - (s.level % STORED_LEVEL_STEP);
    const span = 2 ** (s.level - base);
    return { base, first: s.index * span, span };
  });
  const leaves = new Set<number>();
  const nodes = new Set<string>();
  for (const p of plans) {
    for (let i = p.first; i < p.first + p.span; i++) {
      if (p.base === 0) leaves.add(i);
      else nodes.add(`${p.base}:${i}`);
    }
  }
  const found = new Map<string, Uint8Array>();
  if (leaves.size > 0) {
    const hashes = await leafTilesRepository.leafHashes(db, tenant, [...leaves]);
    for (const [index, hash] of hashes) found.set(`0:${index}`, hash);
  }
  if (nodes.size > 0) {
    const pairs = [...nodes].map((n) => n.split(':').map(Number) as [number, number]);
    const { rows } = await db.query<{ level: number; node_index: string; hash: Buffer }>(
      `SELECT s.level, s.node_index, s.hash FROM unnest($2::smallint[], $3::bigint[]) AS w (level, node_index)
       JOIN integrity_subtrees s ON s.tree_id = ${TREE_OF_TENANT} AND s.level = w.level AND s.node_index = w.node_index`,
      [tenant, pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
    for (const r of rows) found.set(`${r.level}:${r.node_index}`, r.hash);
    // A version of before migration 0018, still appending after it, stores only every eighth level: a node it left
    // out is made from the band below (docs/operations.md "Upgrading past migration 0018"); only leaves missing
    // mean a damaged store. This can go once no store holds such gaps: nothing fills them in yet, so not before a
    // step that stores the left-out levels of every tree exists and has run everywhere.
    const missing = pairs.filter(([level, index]) => !found.has(`${level}:${index}`));
    if (missing.length > 0) {
      const made = await subtreeHashes(
        db,
        tenant,
        missing.map(([level, index]) => ({ level, index })),
        true,
      );
      missing.forEach(([level, index], i) => found.set(`${level}:${index}`, made[i]!));
    }
  }
  return plans.map((p) => {
    const hashes = Array.from({ length: p.span }, (_, k) => found.get(`${p.base}:${p.first + k}`));
    if (hashes.some((h) => h === undefined))
      throw new TreeStoreDamagedError(
        `tenant ${tenant}: hashes of level ${p.base} from ${p.first} are missing`,
      );
    return rootOf(hashes as Uint8Array[]);
  });
}

/** The proof's hashes, one per range (docs/integrity.md "The tree"), from the tenant's stored tree. */
async function proofOfRanges(db: Db, tenant: string, ranges: readonly LeafRange[]): Promise<Uint8Array[]> {
  const split = ranges.map((r) => subtreesOf(r));
  const hashes = await subtreeHashes(db, tenant, split.flat());
  let at = 0;
  return split.map((parts) => hashOfSubtrees(hashes.slice(at, (at += parts.length))));
}

/** What the API reads of the tenants' trees and checkpoints (Postgres: the projector appends, the notary signs). */
export function integrityStore(db: Db) {
  return {
    /** The tenant's checkpoints, largest first, below `belowSize` when given. */
    async checkpoints(tenant: string, belowSize: number | null, limit: number): Promise<StoredCheckpoint[]> {
      const { rows } = await db.query(
        `SELECT ${CHECKPOINT_COLUMNS} FROM integrity_checkpoints
         WHERE tenant_id = $1 AND ($2::bigint IS NULL OR tree_size < $2) ORDER BY tree_size DESC LIMIT $3`,
        [tenant, belowSize, limit],
      );
      return rows.map(checkpointOf);
    },

    /** The tenant's checkpoint of that size; the latest when `size` is null. */
    async checkpoint(tenant: string, size: number | null): Promise<StoredCheckpoint | null> {
      const { rows } = await db.query(
        `SELECT ${CHECKPOINT_COLUMNS} FROM integrity_checkpoints
         WHERE tenant_id = $1 AND ($2::bigint IS NULL OR tree_size = $2) ORDER BY tree_size DESC LIMIT 1`,
        [tenant, size],
      );
      return rows[0] ? checkpointOf(rows[0]) : null;
    },

    /** The tenant's latest checkpoint made at or before `time` (epoch ms), or null. */
    async checkpointMadeBy(tenant: string, time: number): Promise<StoredCheckpoint | null> {
      const { rows } = await db.query(
        `SELECT ${CHECKPOINT_COLUMNS} FROM integrity_checkpoints
         WHERE tenant_id = $1 AND made_at <= $2 ORDER BY tree_size DESC LIMIT 1`,
        [tenant, time],
      );
      return rows[0] ? checkpointOf(rows[0]) : null;
    },

    /** The event's leaf in its tenant's tree, or null when it is none (yet). */
    async leaf(tenant: string, eventId: string): Promise<Leaf | null> {
      const leaf = await leafTilesRepository.leafOfEvent(db, tenant, eventId);
      if (leaf && !leaf.leaf_hash)
        throw new TreeStoreDamagedError(`tenant ${tenant}: the hash of leaf ${leaf.leaf_index} is missing`);
      return leaf as Leaf | null;
    },

    /**
     * For each of the events that is a leaf of its tenant's tree, the first checkpoint covering it (the smallest
     * tree holding its leaf), or null while none does yet; events that are no leaf are left out. One round trip:
     * a leaf's id is one index entry and its checkpoint one probe of the checkpoints' key.
     */
    async coveringCheckpoints(
      tenant: string,
      eventIds: readonly string[],
    ): Promise<Map<string, { tree_size: number; made_at: number } | null>> {
      const { rows } = await db.query<{ event_id: string; tree_size: string | null; made_at: string | null }>(
        `SELECT k.event_id, c.tree_size, c.made_at FROM integrity_leaf_events k
         LEFT JOIN LATERAL (SELECT tree_size, made_at FROM integrity_checkpoints
           WHERE tenant_id = $1 AND tree_size > k.leaf_index ORDER BY tree_size LIMIT 1) c ON true
         WHERE k.tree_id = ${TREE_OF_TENANT} AND k.event_id = ANY($2::uuid[])`,
        [tenant, eventIds],
      );
      return new Map(
        rows.map((r) => [
          r.event_id,
          r.tree_size === null ? null : { tree_size: Number(r.tree_size), made_at: Number(r.made_at) },
        ]),
      );
    },

    /** Every signing key's public half, the active one first. */
    keys: () => integrityKeysRepository.list(db),

    inclusionProof: (tenant: string, index: number, size: number) =>
      proofOfRanges(db, tenant, inclusionRanges(index, size)),

    consistencyProof: (tenant: string, from: number, to: number) =>
      proofOfRanges(db, tenant, consistencyRanges(from, to)),

    /** The consistency proofs of several pairs of sizes, read at once (they share most of their hashes). */
    async consistencyProofs(tenant: string, pairs: readonly [number, number][]): Promise<Uint8Array[][]> {
      const ranges = pairs.map(([from, to]) => consistencyRanges(from, to));
      const hashes = await proofOfRanges(db, tenant, ranges.flat());
      let at = 0;
      return ranges.map((r) => hashes.slice(at, (at += r.length)));
    },

    /**
     * The leaves among the first `size` whose event time is in the window, in time order then leaf order, after
     * `after` (the previous page's last), at most `limit`.
     */
    windowLeaves: (
      tenant: string,
      window: TimeWindow,
      size: number,
      after: { ts: number; leaf_index: number } | null,
      limit: number,
    ): Promise<WindowLeaf[]> => windowLeaves(db, tenant, window, size, after, limit),

    /** Events of the window appended after the first `size` leaves (a later checkpoint covers them), at most `limit`. */
    laterInWindow: (tenant: string, window: TimeWindow, size: number, limit: number): Promise<string[]> =>
      laterInWindow(db, tenant, window, size, limit),

    /** The hashes that, with the given leaves' own, make the root of the tree of `size` leaves. */
    windowProof: (tenant: string, indices: readonly number[], size: number) =>
      proofOfRanges(db, tenant, coverRanges(indices, size)),
  };
}

export type IntegrityStore = ReturnType<typeof integrityStore>;
