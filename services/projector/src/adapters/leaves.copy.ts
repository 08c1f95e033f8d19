import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { cutTiles } from '@audit/shared';
import type { NewLeaf } from '../domain/append-plan.js';

/** The name of the key that makes an event a leaf once per tree (migration 0020). */
const LEAF_EVENT_KEY = 'integrity_leaf_events_pkey';

/** Whether a write failed because one of its events is a leaf of its tree already (a unique violation). */
export const isKnownLeafError = (err: unknown): boolean =>
  err instanceof pg.DatabaseError && err.code === '23505' && err.constraint === LEAF_EVENT_KEY;

const copy = (db: pg.PoolClient, sql: string, text: string) =>
  pipeline(Readable.from([text]), db.query(copyFrom(sql)));

/** A bytea in COPY's text format: hex, its `\x` escaped. */
const bytea = (b: Buffer) => `\\\\x${b.toString('hex')}`;

/**
 * The leaves (consecutive per tenant, in leaf order, as planAppend makes them) as COPY's text format: their event
 * ids' keys and their tenants' tiles (docs/integrity.md "The tree store"). Every value is a number, a tree number,
 * a lowercase UUID (the record schema's rule) or hex: none needs COPY's escapes but the backslash of the bytea's
 * own `\x`.
 */
export function copyTexts(
  leaves: readonly NewLeaf[],
  treeIdOf: (tenant: string) => string,
): { keys: string; tiles: string } {
  let keys = '';
  let tiles = '';
  for (let start = 0, end = 0; start < leaves.length; start = end) {
    const tenant = leaves[start]!.tenant_id;
    while (end < leaves.length && leaves[end]!.tenant_id === tenant) end++;
    const tree = treeIdOf(tenant);
    for (let i = start; i < end; i++) keys += `${tree}\t${leaves[i]!.event_id}\t${leaves[i]!.leaf_index}\n`;
    for (const t of cutTiles(leaves.slice(start, end))) {
      tiles += `${tree}\t${t.first_index}\t${bytea(t.leaf_hashes)}\t${bytea(t.event_ids)}\t${bytea(t.times!)}\t${t.min_ts}\t${t.max_ts}\n`;
    }
  }
  return { keys, tiles };
}

/**
 * Writes the leaves with COPY in its text format: cheaper for the projector and for Postgres than an INSERT of array
 * parameters, which both sides must make and parse as array literals.
 */
export async function copyLeaves(
  db: pg.PoolClient,
  leaves: readonly NewLeaf[],
  treeIdOf: (tenant: string) => string,
): Promise<void> {
  const { keys, tiles } = copyTexts(leaves, treeIdOf);
  await copy(db, 'COPY integrity_leaf_events (tree_id, event_id, leaf_index) FROM STDIN', keys);
  await copy(
    db,
    'COPY integrity_tiles (tree_id, first_index, leaf_hashes, event_ids, times, min_ts, max_ts) FROM STDIN',
    tiles,
  );
}
