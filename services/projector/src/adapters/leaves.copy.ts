import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { cutTiles, type Tile } from '@audit/shared/integrity';
import type { NewLeaf } from '../domain/append-plan.js';
import { BinaryRows } from './binary-copy.js';

/** The name of the key that makes an event a leaf once per tree (migration 0020). */
const LEAF_EVENT_KEY = 'integrity_leaf_events_pkey';

/** Whether a write failed because one of its events is a leaf of its tree already (a unique violation). */
export const isKnownLeafError = (err: unknown): boolean =>
  err instanceof pg.DatabaseError && err.code === '23505' && err.constraint === LEAF_EVENT_KEY;

// Each row's field count, each field's length, then the values: bigints 8 bytes, a UUID 16, a leaf's hash 32.
const KEY_ROW_BYTES = 2 + (4 + 8) + (4 + 16) + (4 + 8);
const TILE_ROW_BYTES = 2 + 4 * (4 + 8) + 3 * 4;
const TILE_LEAF_BYTES = 32 + 16 + 8;

/**
 * The order to write a tree's new event-id keys in: by their ids' first bits, as many as the keys need to be told
 * apart, by counting. Inserted in the key's order, each key lands beside the one before in the index, whose pages
 * are then at hand: measured, about 1 µs a leaf less for Postgres than in leaf order
 * (docs/benchmarks/journal.md).
 */
export function keyOrder(ids: Uint8Array, count: number): Uint32Array {
  const order = new Uint32Array(count);
  const bits = Math.min(16, Math.max(1, Math.ceil(Math.log2(count))));
  const bucketOf = (k: number) => ((ids[k * 16]! << 8) | ids[k * 16 + 1]!) >>> (16 - bits);
  const starts = new Uint32Array((1 << bits) + 1);
  for (let k = 0; k < count; k++) starts[bucketOf(k) + 1]!++;
  for (let b = 1; b < starts.length; b++) starts[b]! += starts[b - 1]!;
  for (let k = 0; k < count; k++) order[starts[bucketOf(k)]!++] = k;
  return order;
}

/**
 * The leaves (consecutive per tenant, in leaf order, as planAppend makes them) as COPY's binary rows: their tenants'
 * tiles (docs/integrity.md "The tree store") and their event ids' keys.
 */
export function copyRows(
  leaves: readonly NewLeaf[],
  treeIdOf: (tenant: string) => string,
): { keys: Buffer; tiles: Buffer } {
  const trees: { tree: number; tiles: Tile[] }[] = [];
  for (let start = 0, end = 0; start < leaves.length; start = end) {
    const tenant = leaves[start]!.tenant_id;
    while (end < leaves.length && leaves[end]!.tenant_id === tenant) end++;
    trees.push({ tree: Number(treeIdOf(tenant)), tiles: cutTiles(leaves.slice(start, end)) });
  }
  const tileCount = trees.reduce((n, t) => n + t.tiles.length, 0);
  const tiles = new BinaryRows(tileCount * TILE_ROW_BYTES + leaves.length * TILE_LEAF_BYTES);
  const keys = new BinaryRows(leaves.length * KEY_ROW_BYTES);
  for (const { tree, tiles: cut } of trees) {
    for (const t of cut) {
      tiles.row(7).int8(tree).int8(t.first_index);
      tiles.bytes(t.leaf_hashes).bytes(t.event_ids).bytes(t.times!).int8(t.min_ts!).int8(t.max_ts!);
    }
    const ids = cut.length === 1 ? cut[0]!.event_ids : Buffer.concat(cut.map((t) => t.event_ids));
    const first = cut[0]!.first_index;
    for (const k of keyOrder(ids, ids.length / 16))
      keys
        .row(3)
        .int8(tree)
        .bytes(ids, k * 16, 16)
        .int8(first + k);
  }
  return { keys: keys.end(), tiles: tiles.end() };
}

const copy = (db: pg.PoolClient, sql: string, rows: Buffer) =>
  pipeline(Readable.from([rows]), db.query(copyFrom(sql)));

/**
 * Writes the leaves with COPY in its binary format: cheaper for the projector and for Postgres than the text format
 * or an INSERT of array parameters, which both sides must make and parse as text.
 */
export async function copyLeaves(
  db: pg.PoolClient,
  leaves: readonly NewLeaf[],
  treeIdOf: (tenant: string) => string,
): Promise<void> {
  const { keys, tiles } = copyRows(leaves, treeIdOf);
  await copy(
    db,
    'COPY integrity_leaf_events (tree_id, event_id, leaf_index) FROM STDIN (FORMAT binary)',
    keys,
  );
  await copy(
    db,
    `COPY integrity_tiles (tree_id, first_index, leaf_hashes, event_ids, times, min_ts, max_ts)
     FROM STDIN (FORMAT binary)`,
    tiles,
  );
}
