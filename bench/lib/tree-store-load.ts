// A tenant's tree store written straight into Postgres, for bench:integrity's proofs on a tree of millions of
// leaves: pushing that many events through Kafka and the notary would take hours on two cores. The leaf hashes and
// event ids are random (a proof does not care what the leaves hash), the leaves are stored as the notary stores
// them (migration 0020: tiles of consecutive leaves, and a key row per event id), the subtrees are those the
// notary stores (appendLeaves, then the levels planAppend keeps), and the tree row and a signed checkpoint are
// what the notary's append and checkpoint loop would leave.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import {
  appendLeaves,
  EMPTY_FRONTIER,
  frontierRoot,
  integrityKeysRepository,
  rawPublicKey,
  signCheckpoint,
  verifierKeyOf,
  type CheckpointKey,
  STORED_LEVEL_STEP,
  TILE_MAX_LEAVES,
  TILE_MAX_SPAN_MS,
  type Frontier,
  type Tile,
} from '@audit/shared/integrity';
import { originOf } from '../../services/notary/src/domain/checkpoint-of.js';

/**
 * Leaves per chunk (a statement of its tiles, one of its event ids' keys): a multiple of 256, so each chunk completes
 * whole subtrees of the levels stored, and of TILE_MAX_LEAVES, so each chunk is whole tiles.
 */
const CHUNK = 65_536;
const WRITERS = 2;
// Event times 1 ms apart: a full tile spans TILE_MAX_LEAVES - 1 ms, so the notary's cutTiles would cut the leaves
// every TILE_MAX_LEAVES, as leafChunk does.
if (CHUNK % TILE_MAX_LEAVES !== 0 || TILE_MAX_LEAVES - 1 > TILE_MAX_SPAN_MS)
  throw new Error('tree-store-load: a chunk of leaves 1 ms apart is no longer whole tiles');

export interface LoadedTree {
  size: number;
  root: Uint8Array;
  seconds: number;
}

/** Random version 4 UUIDs, as 16 bytes each (as the events' ids are: test/support/events.ts, randomUUID). */
function randomUuids(count: number): Buffer {
  const ids = randomBytes(16 * count);
  for (let at = 0; at < ids.length; at += 16) {
    ids[at + 6] = (ids[at + 6]! & 0x0f) | 0x40;
    ids[at + 8] = (ids[at + 8]! & 0x3f) | 0x80;
  }
  return ids;
}

/**
 * Leaves `from` to `from + count` (`from` a multiple of TILE_MAX_LEAVES): random hashes and event ids, times
 * `firstTs + index`; their tiles, TILE_MAX_LEAVES leaves each (the last maybe fewer), the pieces of the chunk's
 * buffers cutTiles would make of these leaves; and the event ids as one bytea the key statement cuts into 16-byte
 * pieces.
 */
function leafChunk(from: number, count: number, firstTs: number) {
  const bytes = randomBytes(32 * count);
  const hashes = Array.from({ length: count }, (_, i) => bytes.subarray(32 * i, 32 * i + 32));
  const ids = randomUuids(count);
  const times = Buffer.allocUnsafe(8 * count);
  for (let i = 0; i < count; i++) times.writeBigInt64BE(BigInt(firstTs + from + i), 8 * i);
  const tiles: Tile[] = [];
  for (let at = 0; at < count; at += TILE_MAX_LEAVES) {
    const end = Math.min(at + TILE_MAX_LEAVES, count);
    tiles.push({
      first_index: from + at,
      leaf_hashes: bytes.subarray(32 * at, 32 * end),
      event_ids: ids.subarray(16 * at, 16 * end),
      times: times.subarray(8 * at, 8 * end),
      min_ts: firstTs + from + at,
      max_ts: firstTs + from + end - 1,
    });
  }
  return { from, hashes, ids, tiles };
}

/**
 * Appends `size` leaves to the tenant's (empty) tree: leaves with random event ids and event times one millisecond
 * apart from `firstTs`, in tiles of TILE_MAX_LEAVES with a key row per event id, every complete subtree of every
 * STORED_LEVEL_STEP-th level, the tree row, and a checkpoint of the whole tree signed with `key` (made the active
 * key). Two chunks are written while the next is made.
 */
export async function loadTreeStore(
  pool: pg.Pool,
  opts: {
    tenant: string;
    size: number;
    firstTs: number;
    key: CheckpointKey;
    logName: string;
    progress?: (done: number) => void;
  },
): Promise<LoadedTree> {
  const started = performance.now();
  let frontier: Frontier = EMPTY_FRONTIER;
  // Two chunks in flight, one core of Postgres each: most of its work is the event ids' key, an index entry per
  // leaf at a random place; a tile is a row (with two index entries) and its values' TOAST chunks, about 2 kB each,
  // per TILE_MAX_LEAVES leaves.
  const writing: Promise<unknown>[] = [];
  // Tiles, keys and subtrees are keyed by the tree's number (migration 0019): the tree row comes first.
  const { rows } = await pool.query<{ tree_id: string }>(
    'INSERT INTO integrity_trees (tenant_id) VALUES ($1) RETURNING tree_id',
    [opts.tenant],
  );
  const treeId = rows[0]!.tree_id;
  for (let from = 0; from < opts.size; from += CHUNK) {
    const chunk = leafChunk(from, Math.min(CHUNK, opts.size - from), opts.firstTs);
    const appended = appendLeaves(frontier, chunk.hashes);
    frontier = appended.frontier;
    const subtrees = appended.completed.filter((s) => s.level > 0 && s.level % STORED_LEVEL_STEP === 0);
    if (writing.length >= WRITERS) await writing.shift();
    opts.progress?.(from);
    writing.push(
      Promise.all([
        pool.query(
          `INSERT INTO integrity_tiles (tree_id, first_index, leaf_hashes, event_ids, times, min_ts, max_ts)
         SELECT $1, * FROM unnest($2::bigint[], $3::bytea[], $4::bytea[], $5::bytea[], $6::bigint[], $7::bigint[])`,
          [
            treeId,
            chunk.tiles.map((t) => t.first_index),
            chunk.tiles.map((t) => t.leaf_hashes),
            chunk.tiles.map((t) => t.event_ids),
            chunk.tiles.map((t) => t.times),
            chunk.tiles.map((t) => t.min_ts),
            chunk.tiles.map((t) => t.max_ts),
          ],
        ),
        pool.query(
          `INSERT INTO integrity_leaf_events (tree_id, event_id, leaf_index)
         SELECT $1, encode(substring($3::bytea FROM 16 * i + 1 FOR 16), 'hex')::uuid, $2::bigint + i
         FROM generate_series(0, $4::int - 1) AS i`,
          [treeId, chunk.from, chunk.ids, chunk.hashes.length],
        ),
        subtrees.length === 0
          ? null
          : pool.query(
              `INSERT INTO integrity_subtrees (tree_id, level, node_index, hash)
             SELECT $1, * FROM unnest($2::smallint[], $3::bigint[], $4::bytea[])`,
              [
                treeId,
                subtrees.map((s) => s.level),
                subtrees.map((s) => s.index),
                subtrees.map((s) => Buffer.from(s.hash)),
              ],
            ),
      ]),
    );
  }
  await Promise.all(writing);
  const root = frontierRoot(frontier);
  const time = Date.now();
  await integrityKeysRepository.insertActive(pool, {
    name: opts.key.name,
    publicKey: rawPublicKey(opts.key.privateKey),
    verifierKey: verifierKeyOf(opts.key),
    createdBy: 'bench:integrity',
  });
  await pool.query(
    `UPDATE integrity_trees SET size = $2, frontier = $3, signed_size = $2, signed_at = $4 WHERE tenant_id = $1`,
    [opts.tenant, opts.size, Buffer.concat(frontier.hashes), time],
  );
  const note = signCheckpoint(
    { origin: originOf(opts.logName, opts.tenant), size: opts.size, root, time },
    opts.key,
  );
  await pool.query(
    `INSERT INTO integrity_checkpoints (tenant_id, tree_size, root_hash, made_at, key_name, note)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [opts.tenant, opts.size, Buffer.from(root), time, opts.key.name, note],
  );
  return { size: opts.size, root, seconds: (performance.now() - started) / 1000 };
}
