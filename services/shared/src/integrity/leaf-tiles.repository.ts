import type pg from 'pg';
import type { Tile } from './leaf-tiles.js';

type Db = Pick<pg.Pool, 'query'>;

/** A tenant's tree number, for queries of its leaves and subtrees (migration 0019): the query's $1 is the tenant. */
export const TREE_OF_TENANT = '(SELECT tree_id FROM integrity_trees WHERE tenant_id = $1)';

export const TILE_COLUMNS = 'first_index, leaf_hashes, event_ids, times, min_ts, max_ts';

export interface TileRow {
  first_index: string;
  leaf_hashes: Buffer;
  event_ids: Buffer;
  times: Buffer | null;
  min_ts: string | null;
  max_ts: string | null;
}

/** A row of integrity_tiles (bigints come as strings) as a Tile. */
export const tileOfRow = (r: TileRow): Tile => ({
  ...r,
  first_index: Number(r.first_index),
  min_ts: r.min_ts === null ? null : Number(r.min_ts),
  max_ts: r.max_ts === null ? null : Number(r.max_ts),
});

/** What is read of the tiles of a tenant's tree (docs/integrity.md "The tree store"). */
export const leafTilesRepository = {
  /** Up to `limit` tiles in leaf order that begin after leaf `after` (-1: from the first). */
  async after(db: Db, tenant: string, after: number, limit: number): Promise<Tile[]> {
    const { rows } = await db.query<TileRow>(
      `SELECT ${TILE_COLUMNS} FROM integrity_tiles WHERE tree_id = ${TREE_OF_TENANT} AND first_index > $2
       ORDER BY first_index LIMIT $3`,
      [tenant, after, limit],
    );
    return rows.map(tileOfRow);
  },

  /**
   * The leaf hashes of those indices, by index; an index no tile holds is left out. Each is read alone from the
   * tile holding it (its values are never compressed, so only the chunk holding the hash is read).
   */
  async leafHashes(db: Db, tenant: string, indices: readonly number[]): Promise<Map<number, Buffer>> {
    const { rows } = await db.query<{ leaf_index: string; leaf_hash: Buffer }>(
      `SELECT w.i AS leaf_index, substring(t.leaf_hashes FROM (w.i - t.first_index)::int * 32 + 1 FOR 32) AS leaf_hash
       FROM unnest($2::bigint[]) AS w (i)
       JOIN LATERAL (SELECT first_index, leaf_hashes FROM integrity_tiles
         WHERE tree_id = ${TREE_OF_TENANT} AND first_index <= w.i ORDER BY first_index DESC LIMIT 1) t
         ON w.i < t.first_index + length(t.leaf_hashes) / 32`,
      [tenant, indices],
    );
    return new Map(rows.map((r) => [Number(r.leaf_index), r.leaf_hash]));
  },

  /**
   * The event's leaf index and hash (null when no tile holds the leaf: a damaged store), or null when the event is
   * no leaf of the tenant's tree (yet).
   */
  async leafOfEvent(
    db: Db,
    tenant: string,
    eventId: string,
  ): Promise<{ leaf_index: number; leaf_hash: Buffer | null } | null> {
    const { rows } = await db.query<{ leaf_index: string; leaf_hash: Buffer | null }>(
      `SELECT k.leaf_index, substring(t.leaf_hashes FROM (k.leaf_index - t.first_index)::int * 32 + 1 FOR 32) AS leaf_hash
       FROM integrity_leaf_events k
       LEFT JOIN LATERAL (SELECT first_index, leaf_hashes FROM integrity_tiles
         WHERE tree_id = k.tree_id AND first_index <= k.leaf_index ORDER BY first_index DESC LIMIT 1) t
         ON k.leaf_index < t.first_index + length(t.leaf_hashes) / 32
       WHERE k.tree_id = ${TREE_OF_TENANT} AND k.event_id = $2::uuid`,
      [tenant, eventId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      leaf_index: Number(row.leaf_index),
      leaf_hash: row.leaf_hash,
    };
  },
};
