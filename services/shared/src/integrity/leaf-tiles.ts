/**
 * A tree's leaves are stored in tiles (docs/integrity.md "The tree store"): runs of consecutive leaves of one tree
 * in one row, their hashes, event ids and event times each packed into one bytea, so that a batch of the audit topic
 * costs its Postgres a row per tenant rather than a row and three index entries per leaf.
 */

/** A tile holds at most this many leaves: a window page decodes whole tiles, so they stay small. */
export const TILE_MAX_LEAVES = 1024;

/**
 * A tile's event times lie within this many milliseconds of each other, so that the leaves of a window of time
 * are all in tiles whose earliest time is at most this much before the window (one index range, however long the
 * tree). Events of one batch are seconds apart; a batch of events from all over the calendar (a backfill) is
 * stored as tiles of the events that are close, down to a leaf a tile.
 */
export const TILE_MAX_SPAN_MS = 600_000;

const HASH_BYTES = 32;
const ID_BYTES = 16;
const TIME_BYTES = 8;

/** A leaf as the projector appends it. */
export interface TileLeaf {
  leaf_index: number;
  event_id: string;
  leaf_hash: Uint8Array;
  /** The event's time, epoch ms. */
  ts: number;
}

/** A stored tile: consecutive leaves from `first_index`, as its row holds them. */
export interface Tile {
  first_index: number;
  leaf_hashes: Buffer;
  event_ids: Buffer;
  /** Big-endian int64 epoch ms, one per leaf; null for a leaf appended before leaves had times (migration 0017). */
  times: Buffer | null;
  min_ts: number | null;
  max_ts: number | null;
}

const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d++) HEX_DIGIT['0123456789abcdef'.charCodeAt(d)] = d;

/**
 * Writes a UUID (lowercase, with dashes: the record schema's rule) as its 16 bytes at `at`: the projector does it
 * for every leaf, without the strings and buffers a `Buffer.from` of its hex would make.
 */
export function writeUuid(id: string, out: Uint8Array, at: number): void {
  if (id.length !== 36) throw new TypeError(`not a UUID: ${JSON.stringify(id)}`);
  for (let i = 0, byte = at; i < 36; i += 2, byte++) {
    // The dashes, skipped.
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (id.charCodeAt(i) !== 45) throw new TypeError(`not a UUID: ${JSON.stringify(id)}`);
      i++;
    }
    const high = HEX_DIGIT[id.charCodeAt(i)] ?? -1;
    const low = HEX_DIGIT[id.charCodeAt(i + 1)] ?? -1;
    if (high < 0 || low < 0) throw new TypeError(`not a UUID: ${JSON.stringify(id)}`);
    out[byte] = (high << 4) | low;
  }
}

/** A UUID as its 16 bytes (writeUuid), and back. */
export const uuidBytes = (id: string): Buffer => {
  const out = Buffer.allocUnsafe(ID_BYTES);
  writeUuid(id, out, 0);
  return out;
};
export const uuidOf = (bytes: Buffer, at = 0): string => {
  const hex = bytes.toString('hex', at, at + ID_BYTES);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

function tileOf(run: readonly TileLeaf[]): Tile {
  const times = Buffer.allocUnsafe(run.length * TIME_BYTES);
  let min = Infinity;
  let max = -Infinity;
  run.forEach((l, i) => {
    // Two 32-bit halves: a time is a safe integer from 0 on (the record schema's rule), and no BigInt is made.
    times.writeUInt32BE(Math.floor(l.ts / 2 ** 32), i * TIME_BYTES);
    times.writeUInt32BE(l.ts % 2 ** 32, i * TIME_BYTES + 4);
    min = Math.min(min, l.ts);
    max = Math.max(max, l.ts);
  });
  const hashes = Buffer.allocUnsafe(run.length * HASH_BYTES);
  const ids = Buffer.allocUnsafe(run.length * ID_BYTES);
  run.forEach((l, i) => {
    // A shorter hash would leave bytes of the unzeroed buffer in the tile.
    if (l.leaf_hash.length !== HASH_BYTES) throw new RangeError(`a leaf hash of ${l.leaf_hash.length} bytes`);
    hashes.set(l.leaf_hash, i * HASH_BYTES);
    writeUuid(l.event_id, ids, i * ID_BYTES);
  });
  return {
    first_index: run[0]!.leaf_index,
    leaf_hashes: hashes,
    event_ids: ids,
    times,
    min_ts: min,
    max_ts: max,
  };
}

/**
 * Cuts one tree's newly appended leaves (consecutive, in leaf order) into tiles: a leaf begins a new tile when the
 * current one is full or the leaf's time would stretch it past TILE_MAX_SPAN_MS.
 */
export function cutTiles(leaves: readonly TileLeaf[]): Tile[] {
  const tiles: Tile[] = [];
  let run: TileLeaf[] = [];
  let min = 0;
  let max = 0;
  for (const leaf of leaves) {
    const lo = Math.min(min, leaf.ts);
    const hi = Math.max(max, leaf.ts);
    if (run.length > 0 && (run.length === TILE_MAX_LEAVES || hi - lo > TILE_MAX_SPAN_MS)) {
      tiles.push(tileOf(run));
      run = [];
    }
    if (run.length === 0) [min, max] = [leaf.ts, leaf.ts];
    else [min, max] = [lo, hi];
    run.push(leaf);
  }
  if (run.length > 0) tiles.push(tileOf(run));
  return tiles;
}

/** A tile's leaf count. */
export const tileSize = (tile: Pick<Tile, 'leaf_hashes'>): number => tile.leaf_hashes.length / HASH_BYTES;

/** The hash of the tile's leaf of that index (which the tile must hold). */
export const tileLeafHash = (tile: Pick<Tile, 'first_index' | 'leaf_hashes'>, index: number): Buffer => {
  const at = (index - tile.first_index) * HASH_BYTES;
  return tile.leaf_hashes.subarray(at, at + HASH_BYTES);
};

/** The time of the tile's `i`-th leaf (its times must be there: not a leaf of before migration 0017). */
export const tileTime = (tile: Pick<Tile, 'times'>, i: number): number =>
  Number(tile.times!.readBigInt64BE(i * TIME_BYTES));

/** The event id of the tile's `i`-th leaf. */
export const tileEventId = (tile: Pick<Tile, 'event_ids'>, i: number): string =>
  uuidOf(tile.event_ids, i * ID_BYTES);

/**
 * The tile's leaves, in leaf order; a leaf without a time (before migration 0017) has ts null, until the re-read
 * of docs/operations.md "Leaves appended before migration 0017" gives it one: once every deployment has done it,
 * times are never missing and the null case can go.
 */
export function leavesOfTile(
  tile: Tile,
): { leaf_index: number; event_id: string; leaf_hash: Buffer; ts: number | null }[] {
  return Array.from({ length: tileSize(tile) }, (_, i) => ({
    leaf_index: tile.first_index + i,
    event_id: tileEventId(tile, i),
    leaf_hash: tileLeafHash(tile, tile.first_index + i),
    ts: tile.times ? tileTime(tile, i) : null,
  }));
}
