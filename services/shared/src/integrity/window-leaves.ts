import type pg from 'pg';
import {
  TILE_MAX_LEAVES,
  TILE_MAX_SPAN_MS,
  tileEventId,
  tileLeafHash,
  tileSize,
  tileTime,
  type Tile,
} from './leaf-tiles.js';
import { TILE_COLUMNS, tileOfRow, TREE_OF_TENANT, type TileRow } from './leaf-tiles.repository.js';

/** A leaf of a tenant's tree: its index and hash. */
export interface Leaf {
  leaf_index: number;
  leaf_hash: Buffer;
}

/** A leaf as a window proof shows it: with its event and the event's time. */
export interface WindowLeaf extends Leaf {
  event_id: string;
  ts: number;
}

/** A window of event time, epoch ms, `until` exclusive; unbounded on a side not given. */
export interface TimeWindow {
  since?: number;
  until?: number;
}

type Db = Pick<pg.Pool, 'query'>;

// Every event time is from 1970 to 9999 (docs/api.md): these bound a window not bounded on a side.
const NO_SINCE = 0;
const NO_UNTIL = Number.MAX_SAFE_INTEGER;

/** Tiles are read this many at a time at first, twice as many each time more are needed, up to the most. */
const FIRST_CHUNK = 32;
const MOST_CHUNK = 1024;

interface Candidate {
  tile: Tile;
  leaf_index: number;
  ts: number;
}

type Place = Pick<Candidate, 'ts' | 'leaf_index'>;
const before = (a: Place, b: Place) => a.ts - b.ts || a.leaf_index - b.leaf_index;

const leafOf = (c: Candidate): WindowLeaf => ({
  leaf_index: c.leaf_index,
  ts: c.ts,
  event_id: tileEventId(c.tile, c.leaf_index - c.tile.first_index),
  leaf_hash: tileLeafHash(c.tile, c.leaf_index),
});

/**
 * The leaves among the first `size` whose event time is in the window, in time order then leaf order, after
 * `after`, at most `limit`. A tile's times lie within TILE_MAX_SPAN_MS, so every leaf from time `lo` on is in a
 * tile whose least time is at least `lo - TILE_MAX_SPAN_MS`: tiles are read in order of their least time from
 * there, and once `limit` leaves are earlier than the least time of the last tile read, no tile not read yet can
 * hold an earlier one.
 */
export async function windowLeaves(
  db: Db,
  tenant: string,
  window: TimeWindow,
  size: number,
  after: { ts: number; leaf_index: number } | null,
  limit: number,
): Promise<WindowLeaf[]> {
  const since = window.since ?? NO_SINCE;
  const until = window.until ?? NO_UNTIL;
  const lo = Math.max(since, after?.ts ?? since);
  const found: Candidate[] = [];
  let cursor: [number, number] = [lo - TILE_MAX_SPAN_MS - 1, Number.MAX_SAFE_INTEGER];
  for (let chunk = FIRST_CHUNK; ; chunk = Math.min(chunk * 2, MOST_CHUNK)) {
    const { rows } = await db.query<TileRow>(
      `SELECT ${TILE_COLUMNS} FROM integrity_tiles
       WHERE tree_id = ${TREE_OF_TENANT} AND min_ts < $2 AND max_ts >= $3 AND first_index < $4
         AND min_ts >= $5 AND (min_ts, first_index) > ($5::bigint, $6::bigint)
       ORDER BY min_ts, first_index LIMIT $7`,
      [tenant, until, lo, size, cursor[0], cursor[1], chunk],
    );
    const tiles = rows.map(tileOfRow);
    for (const tile of tiles) {
      for (let i = 0; i < tileSize(tile); i++) {
        const c = { tile, leaf_index: tile.first_index + i, ts: tileTime(tile, i) };
        if (c.ts < since || c.ts >= until || c.leaf_index >= size) continue;
        if (after && before(c, after) <= 0) continue;
        found.push(c);
      }
    }
    if (tiles.length < chunk) break;
    const last = tiles.at(-1)!;
    cursor = [last.min_ts!, last.first_index];
    if (found.filter((c) => c.ts < last.min_ts!).length >= limit) break;
  }
  return found.sort(before).slice(0, limit).map(leafOf);
}

/**
 * Events of the window appended after the first `size` leaves, in leaf order, at most `limit`: from the tiles that
 * can hold such a leaf both by time (least time from TILE_MAX_SPAN_MS before the window) and by index (a tile holds
 * at most TILE_MAX_LEAVES), in leaf order, whichever of the two indexes Postgres finds the fewer through.
 */
export async function laterInWindow(
  db: Db,
  tenant: string,
  window: TimeWindow,
  size: number,
  limit: number,
): Promise<string[]> {
  const since = window.since ?? NO_SINCE;
  const until = window.until ?? NO_UNTIL;
  const found: string[] = [];
  let after = size - TILE_MAX_LEAVES;
  for (let chunk = FIRST_CHUNK; found.length < limit; chunk = Math.min(chunk * 2, MOST_CHUNK)) {
    const { rows } = await db.query<Pick<TileRow, 'first_index' | 'event_ids' | 'times'>>(
      `SELECT first_index, event_ids, times FROM integrity_tiles
       WHERE tree_id = ${TREE_OF_TENANT} AND min_ts >= $2 AND min_ts < $3 AND max_ts >= $4 AND first_index > $5
       ORDER BY first_index LIMIT $6`,
      [tenant, since - TILE_MAX_SPAN_MS, until, since, after, chunk],
    );
    for (const r of rows) {
      const first = Number(r.first_index);
      for (let i = 0; i < r.event_ids.length / 16; i++) {
        const ts = tileTime(r, i);
        if (first + i >= size && ts >= since && ts < until) found.push(tileEventId(r, i));
      }
    }
    if (rows.length < chunk) break;
    after = Number(rows.at(-1)!.first_index);
  }
  return found.slice(0, limit);
}
