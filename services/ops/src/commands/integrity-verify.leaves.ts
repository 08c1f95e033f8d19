import type pg from 'pg';
import {
  leafTilesRepository,
  tileLeafHash,
  tileSize,
  TREE_OF_TENANT,
  TreeStoreDamagedError,
} from '@audit/shared/integrity';
import type { TreeLeaf } from '../domain/trail-audit.js';

// The tenant's tree as `ops integrity verify` reads it (docs/integrity.md "The tree store"), in pages of leaves (by
// event id) or tiles (by leaf index): a large tree is never read at once.
// A tile holds 1 to 1024 leaves (a leaf alone when it had no time, before migration 0017): 64 tiles are at least
// 64 leaves a query and at most 64Ki (3.5 MiB of packed hashes, ids and times).
const PAGE = 10_000;
const TILE_PAGE = 64;

interface LeafRow {
  event_id: string;
  leaf_index: string;
  leaf_hash: Buffer | null;
  /** Big-endian epoch ms; null for a leaf appended before leaves had times. */
  leaf_time: Buffer | null;
}

/**
 * The tenant's leaves by event id, read in pages (keyset on the id); each hash and time is cut from the tile
 * holding the leaf, in the same query. A leaf whose hash no tile holds is a damaged tree store: thrown, never
 * skipped, as a skipped leaf would be neither compared nor named.
 */
export async function* leavesByEventId(pool: pg.Pool, tenant: string): AsyncGenerator<TreeLeaf> {
  let after: string | null = null;
  for (;;) {
    const { rows }: { rows: LeafRow[] } = await pool.query(
      `SELECT k.event_id::text, k.leaf_index,
           substring(t.leaf_hashes FROM (k.leaf_index - t.first_index)::int * 32 + 1 FOR 32) AS leaf_hash,
           substring(t.times FROM (k.leaf_index - t.first_index)::int * 8 + 1 FOR 8) AS leaf_time
         FROM integrity_leaf_events k
         LEFT JOIN LATERAL (SELECT first_index, leaf_hashes, times FROM integrity_tiles
           WHERE tree_id = k.tree_id AND first_index <= k.leaf_index ORDER BY first_index DESC LIMIT 1) t
           ON k.leaf_index < t.first_index + length(t.leaf_hashes) / 32
         WHERE k.tree_id = ${TREE_OF_TENANT} AND ($2::uuid IS NULL OR k.event_id > $2::uuid)
         ORDER BY k.event_id LIMIT ${PAGE}`,
      [tenant, after],
    );
    if (rows.length === 0) return;
    for (const r of rows) {
      if (!r.leaf_hash)
        throw new TreeStoreDamagedError(
          `tenant ${tenant}: the hash of leaf ${r.leaf_index} (event ${r.event_id}) is in no tile`,
        );
      yield {
        event_id: r.event_id,
        leaf_index: Number(r.leaf_index),
        leaf_hash: r.leaf_hash,
        ts: r.leaf_time ? Number(r.leaf_time.readBigInt64BE(0)) : null,
      };
    }
    after = rows.at(-1)!.event_id;
  }
}

/**
 * The tenant's leaf hashes in leaf order, a page of tiles at a time. The tiles must follow each other without gap
 * or overlap, and reach at least the tree's size when reading began: a leaf left out would shift every later one,
 * and the checkpoints would all look like forks.
 */
export async function* leafHashesInOrder(pool: pg.Pool, tenant: string, count: (n: number) => void) {
  const { rows } = await pool.query<{ size: string }>(
    'SELECT size FROM integrity_trees WHERE tenant_id = $1',
    [tenant],
  );
  const size = Number(rows[0]?.size ?? 0);
  let next = 0;
  for (let after = -1; ;) {
    const tiles = await leafTilesRepository.after(pool, tenant, after, TILE_PAGE);
    if (tiles.length === 0) break;
    const hashes: Buffer[] = [];
    for (const tile of tiles) {
      if (tile.first_index !== next)
        throw new TreeStoreDamagedError(
          `tenant ${tenant}: a tile begins at leaf ${tile.first_index}, not ${next}`,
        );
      for (let i = 0; i < tileSize(tile); i++) hashes.push(tileLeafHash(tile, next + i));
      next += tileSize(tile);
    }
    count(hashes.length);
    yield hashes;
    after = tiles.at(-1)!.first_index;
  }
  if (next < size)
    throw new TreeStoreDamagedError(`tenant ${tenant}: the tiles end at leaf ${next}, the tree has ${size}`);
}
