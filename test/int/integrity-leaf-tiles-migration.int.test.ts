import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  leavesOfTile,
  TILE_COLUMNS,
  tileOfRow,
  tileSize,
  TREE_OF_TENANT,
  type TileRow,
} from '@audit/shared/integrity';
import { migratePostgres } from '@audit/shared/migrations';
import { uniqueNames } from '../support/names.js';
import { freshPostgres, migrationsUpTo } from '../support/postgres.js';

// Migration 0020 moves the leaves, stored a row each, into tiles (docs/integrity.md "The tree store"): a run of
// up to 256 by index with no leaf missing, all timed and within 10 minutes becomes one tile; every other leaf gets
// one of its own.
const names = uniqueNames('leaftilemigration');
let postgres: Awaited<ReturnType<typeof freshPostgres>> | undefined;
let pool: pg.Pool | undefined;

afterAll(async () => {
  await pool?.end();
  await postgres?.drop();
});

interface Leaf {
  leaf_index: number;
  event_id: string;
  leaf_hash: string;
  ts: number | null;
}

const T0 = Date.UTC(2024, 0, 1);

/** A tree as a notary of 0019 stored it: a leaf per index of `times` (a leaf left out where `skip` says). */
async function oldTree(db: pg.Pool, tenant: string, times: (number | null)[], skip: number[] = []) {
  const leaves: Leaf[] = times
    .map((ts, leaf_index) => ({
      leaf_index,
      event_id: randomUUID(),
      leaf_hash: randomBytes(32).toString('hex'),
      ts,
    }))
    .filter((l) => !skip.includes(l.leaf_index));
  const { rows } = await db.query<{ tree_id: string }>(
    'INSERT INTO integrity_trees (tenant_id, size) VALUES ($1, $2) RETURNING tree_id',
    [tenant, times.length],
  );
  await db.query(
    `INSERT INTO integrity_leaves (tree_id, leaf_index, event_id, leaf_hash, ts)
     SELECT $1, * FROM unnest($2::bigint[], $3::uuid[], $4::bytea[], $5::bigint[])`,
    [
      rows[0]!.tree_id,
      leaves.map((l) => l.leaf_index),
      leaves.map((l) => l.event_id),
      leaves.map((l) => Buffer.from(l.leaf_hash, 'hex')),
      leaves.map((l) => l.ts),
    ],
  );
  return leaves;
}

/** `n` times from `start`, `step` ms apart. */
const evenly = (n: number, start: number, step: number) =>
  Array.from({ length: n }, (_, i) => start + i * step);
/** 256 times from T0 to T0 + span, out of order (as a backfill's), both ends among them. */
const shuffled = (span: number) =>
  Array.from({ length: 256 }, (_, i) => T0 + Math.round((((i * 97) % 256) * span) / 255));
/** Epoch ms times as a tile holds them: big-endian int64s. */
function int64s(times: number[]): Buffer {
  const bytes = Buffer.alloc(times.length * 8);
  times.forEach((t, i) => bytes.writeBigInt64BE(BigInt(t), i * 8));
  return bytes;
}
/** [first index, leaf count] of a tile of its own for each index from `from` up to `to`. */
const singles = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => [from + i, 1]);

const tilesOf = async (db: pg.Pool, tenant: string) =>
  (
    await db.query<TileRow>(
      `SELECT ${TILE_COLUMNS} FROM integrity_tiles WHERE tree_id = ${TREE_OF_TENANT} ORDER BY first_index`,
      [tenant],
    )
  ).rows.map(tileOfRow);

describe('migration 0020: leaves in tiles', () => {
  it('moves every leaf into tiles, packing whole, timed, close runs, and drops integrity_leaves', async () => {
    postgres = await freshPostgres(names);
    expect((await migratePostgres(postgres.url, migrationsUpTo(19))).applied.at(-1)).toBe(
      '19_integrity_tree_ids',
    );
    pool = new pg.Pool({ connectionString: postgres.url });
    const db = pool;

    const untimed = evenly(300, T0, 10).map((ts, i) => (i === 5 || i === 6 ? null : ts));
    const trees = {
      // Seconds apart: two tiles of 256 and the rest of the tree's leaves.
      close: {
        leaves: await oldTree(db, 'close', evenly(600, T0, 1000)),
        tiles: [
          [0, 256],
          [256, 256],
          [512, 88],
        ],
      },
      // Leaves appended before 0017 have no time: their run is not packed, and they are alone in their tiles.
      untimed: { leaves: await oldTree(db, 'untimed', untimed), tiles: [...singles(0, 256), [256, 44]] },
      // A run spanning 10 minutes exactly is packed, one a millisecond longer is not.
      spread: {
        leaves: await oldTree(db, 'spread', [...shuffled(600_000), ...shuffled(600_001)]),
        tiles: [[0, 256], ...singles(256, 512)],
      },
      // A damaged store (leaf 100 missing): the run around the gap is not packed, so no tile claims the leaf.
      damaged: {
        leaves: await oldTree(db, 'damaged', evenly(300, T0, 10), [100]),
        tiles: [...singles(0, 100), ...singles(101, 256), [256, 44]],
      },
    };

    expect((await migratePostgres(postgres.url, migrationsUpTo(20))).applied).toEqual([
      '20_integrity_leaf_tiles',
    ]);

    for (const [tenant, tree] of Object.entries(trees)) {
      const tiles = await tilesOf(db, tenant);
      expect(
        tiles.map((t) => [t.first_index, tileSize(t)]),
        tenant,
      ).toEqual(tree.tiles);
      // Every leaf exactly once, as it was: in leaf order, so the tiles neither overlap nor leave one out.
      const read = tiles.flatMap(leavesOfTile).map((l) => ({ ...l, leaf_hash: l.leaf_hash.toString('hex') }));
      expect(read, tenant).toEqual(tree.leaves);
      for (const tile of tiles) {
        const times = leavesOfTile(tile).map((l) => l.ts!);
        if (tile.times === null) expect([tileSize(tile), tile.min_ts, tile.max_ts]).toEqual([1, null, null]);
        else expect([tile.min_ts, tile.max_ts]).toEqual([Math.min(...times), Math.max(...times)]);
      }
      const { rows: keys } = await db.query<{ event_id: string; leaf_index: string }>(
        `SELECT event_id::text, leaf_index FROM integrity_leaf_events
         WHERE tree_id = ${TREE_OF_TENANT} ORDER BY leaf_index`,
        [tenant],
      );
      expect(keys.map((k) => [k.event_id, Number(k.leaf_index)])).toEqual(
        tree.leaves.map((l) => [l.event_id, l.leaf_index]),
      );
    }
    expect((await tilesOf(db, 'spread'))[0]).toMatchObject({ min_ts: T0, max_ts: T0 + 600_000 });
    expect((await db.query('SELECT to_regclass($1) AS t', ['integrity_leaves'])).rows[0].t).toBeNull();

    // The table refuses a tile longer than 10 minutes, untimed leaves packed together, and a time range with an
    // end missing (a tile the window queries would never find).
    const insertTile = (
      times: number[] | null,
      [min, max]: (number | null)[] = times ? [Math.min(...times), Math.max(...times)] : [null, null],
    ) =>
      db.query(
        `INSERT INTO integrity_tiles (tree_id, first_index, leaf_hashes, event_ids, times, min_ts, max_ts)
         SELECT tree_id, 1000, $1, $2, $3, $4, $5 FROM integrity_trees WHERE tenant_id = 'close'`,
        [randomBytes(64), randomBytes(32), times && int64s(times), min, max],
      );
    await expect(insertTile([T0, T0 + 600_001])).rejects.toThrow(/integrity_tiles_times_check/);
    await expect(insertTile(null)).rejects.toThrow(/integrity_tiles_times_check/);
    await expect(insertTile([T0, T0 + 1], [T0, null])).rejects.toThrow(/integrity_tiles_times_check/);
    await expect(insertTile([T0, T0 + 600_000])).resolves.toMatchObject({ rowCount: 1 });
  });
});
