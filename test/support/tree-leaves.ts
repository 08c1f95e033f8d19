import type pg from 'pg';
import { leafTilesRepository, leavesOfTile } from '@audit/shared/integrity';

export interface StoredLeaf {
  leaf_index: number;
  event_id: string;
  leaf_hash: Buffer;
  ts: number | null;
}

/** Every leaf of the tenant's tree, in leaf order, as its tiles hold them (docs/integrity.md "The tree store"). */
export async function storedLeaves(db: Pick<pg.Pool, 'query'>, tenant: string): Promise<StoredLeaf[]> {
  const leaves: StoredLeaf[] = [];
  for (let after = -1; ;) {
    const tiles = await leafTilesRepository.after(db, tenant, after, 256);
    for (const tile of tiles) leaves.push(...leavesOfTile(tile));
    if (tiles.length < 256) return leaves;
    after = tiles.at(-1)!.first_index;
  }
}

/** The tenant's event-id keys (integrity_leaf_events), by event id. */
export async function leafKeys(db: Pick<pg.Pool, 'query'>, tenant: string): Promise<Map<string, number>> {
  const { rows } = await db.query<{ event_id: string; leaf_index: string }>(
    `SELECT event_id::text, leaf_index FROM integrity_leaf_events
     WHERE tree_id = (SELECT tree_id FROM integrity_trees WHERE tenant_id = $1)`,
    [tenant],
  );
  return new Map(rows.map((r) => [r.event_id, Number(r.leaf_index)]));
}
