import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { NewLeaf } from '../domain/append-plan.js';

/** The name of the key that makes an event a leaf once per tree (migration 0019). */
const LEAF_EVENT_KEY = 'integrity_leaves_tree_id_event_id_key';

/** Whether a write failed because one of its events is a leaf of its tree already (a unique violation). */
export const isKnownLeafError = (err: unknown): boolean =>
  err instanceof pg.DatabaseError && err.code === '23505' && err.constraint === LEAF_EVENT_KEY;

/**
 * Writes leaves with COPY in its text format: cheaper for the notary and for Postgres than an INSERT of five
 * array parameters, which both sides must make and parse as array literals. Every value is a number, a tree
 * number, a lowercase UUID (the record schema's rule) or hex: none needs COPY's escapes but the backslash of the
 * bytea's own `\x`.
 */
export async function copyLeaves(
  db: pg.PoolClient,
  leaves: readonly NewLeaf[],
  treeIdOf: (tenant: string) => string,
): Promise<void> {
  let text = '';
  for (const l of leaves) {
    const hash = Buffer.from(l.leaf_hash.buffer, l.leaf_hash.byteOffset, l.leaf_hash.byteLength).toString(
      'hex',
    );
    text += `${treeIdOf(l.tenant_id)}\t${l.leaf_index}\t${l.event_id}\t\\\\x${hash}\t${l.ts}\n`;
  }
  await pipeline(
    Readable.from([text]),
    db.query(copyFrom('COPY integrity_leaves (tree_id, leaf_index, event_id, leaf_hash, ts) FROM STDIN')),
  );
}
