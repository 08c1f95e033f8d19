import type pg from 'pg';
import { frontierOf, type CheckpointKey } from '@audit/shared/integrity';
import { inTransaction } from '@audit/shared/platform';
import { checkpointOf } from '../domain/checkpoint-of.js';

export interface CheckpointSettings {
  logName: string;
  intervalMs: number;
  every: number;
}

// Checkpoints signed per transaction: a pass over many tenants holds each tree row only briefly.
export const TREES_PER_PASS = 500;

/**
 * Signs a checkpoint of every tree whose new leaves have waited `intervalMs` or number `every`, up to
 * TREES_PER_PASS of them, oldest wait first; returns how many. Each tree row is locked while it is signed and its
 * checkpoint stored, so the checkpoint is of the tree exactly as committed; rows another notary holds (appending,
 * or signing) are skipped until the next pass.
 */
export async function signDue(
  pool: pg.Pool,
  key: CheckpointKey,
  settings: CheckpointSettings,
  now: () => number,
): Promise<number> {
  return inTransaction(pool, async (db) => {
    const time = now();
    const { rows } = await db.query<{ tenant_id: string; size: string; frontier: Buffer }>(
      `SELECT tenant_id, size, frontier FROM integrity_trees
       WHERE unsigned_since IS NOT NULL AND (unsigned_since <= $1 OR size - signed_size >= $2)
       ORDER BY unsigned_since LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [time - settings.intervalMs, settings.every, TREES_PER_PASS],
    );
    if (rows.length === 0) return 0;
    const made = rows.map((r) =>
      checkpointOf(r.tenant_id, frontierOf(r.size, r.frontier), settings.logName, time, key),
    );
    await db.query(
      `INSERT INTO integrity_checkpoints (tenant_id, tree_size, root_hash, made_at, key_name, note)
       SELECT t, s, r, $4, $5, n FROM unnest($1::text[], $2::bigint[], $3::bytea[], $6::text[]) AS c (t, s, r, n)
       ON CONFLICT DO NOTHING`,
      [
        made.map((c) => c.tenant_id),
        made.map((c) => c.size),
        made.map((c) => Buffer.from(c.root)),
        time,
        key.name,
        made.map((c) => c.note),
      ],
    );
    await db.query(
      `UPDATE integrity_trees t SET signed_size = t.size, signed_at = $2, unsigned_since = NULL
       WHERE t.tenant_id = ANY($1::text[])`,
      [made.map((c) => c.tenant_id), time],
    );
    return made.length;
  });
}

/** How far the checkpoints are behind the trees: leaves no checkpoint covers, and the longest any has waited. */
export async function checkpointLag(pool: pg.Pool, now: number) {
  const { rows } = await pool.query<{ leaves: string | null; since: string | null }>(
    `SELECT sum(size - signed_size) AS leaves, min(unsigned_since) AS since FROM integrity_trees
     WHERE unsigned_since IS NOT NULL`,
  );
  const since = rows[0]?.since;
  return {
    unsignedLeaves: Number(rows[0]?.leaves ?? 0),
    lagSeconds: since === null || since === undefined ? 0 : Math.max(0, (now - Number(since)) / 1000),
  };
}
