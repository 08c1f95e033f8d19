import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueNames } from '../../../../test/support/names.js';
import { freshPostgres } from '../../../../test/support/postgres.js';
import { migratePostgres } from '../migrations/postgres.migrator.js';
import { cutTiles, TILE_MAX_SPAN_MS, type TileLeaf } from './leaf-tiles.js';
import { laterInWindow, windowLeaves } from './window-leaves.js';

const names = uniqueNames('windowleaves');
const tenant = `w-${names.id}`;
let postgres: Awaited<ReturnType<typeof freshPostgres>>;
let pool: pg.Pool;
const T = 1_800_000_000_000;
const leaves: TileLeaf[] = [];

// Times mostly rising with jitter, as a live trail's are, and a backfill of times from all over a year in the
// middle: tiles of many leaves, tiles that overlap in time, and tiles of one leaf.
function timeOf(i: number): number {
  if (i >= 1500 && i < 1700) return T - Math.floor(Math.random() * 365 * 86_400_000);
  return T + i * 1000 + Math.floor(Math.random() * 400_000) - 200_000;
}

beforeAll(async () => {
  postgres = await freshPostgres(names);
  await migratePostgres(postgres.url);
  pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
  const { rows } = await pool.query<{ tree_id: string }>(
    'INSERT INTO integrity_trees (tenant_id) VALUES ($1) RETURNING tree_id',
    [tenant],
  );
  for (let i = 0; i < 4000; i++) {
    leaves.push({ leaf_index: i, event_id: randomUUID(), leaf_hash: randomBytes(32), ts: timeOf(i) });
  }
  // Batches of the sizes a notary sees, each cut into tiles as the notary cuts it.
  for (let at = 0; at < leaves.length;) {
    const batch = leaves.slice(at, (at += 1 + Math.floor(Math.random() * 700)));
    const tiles = cutTiles(batch);
    await pool.query(
      `INSERT INTO integrity_tiles SELECT $1, * FROM unnest($2::bigint[], $3::bytea[], $4::bytea[], $5::bytea[], $6::bigint[], $7::bigint[])`,
      [
        rows[0]!.tree_id,
        ...(['first_index', 'leaf_hashes', 'event_ids', 'times', 'min_ts', 'max_ts'] as const).map((k) =>
          tiles.map((t) => t[k]),
        ),
      ],
    );
  }
});
afterAll(async () => {
  await pool?.end();
  await postgres?.drop();
});

/** What a window's pages must hold: its leaves below `size`, by time then index. */
const expected = (since: number, until: number, size: number) =>
  leaves
    .filter((l) => l.ts >= since && l.ts < until && l.leaf_index < size)
    .sort((a, b) => a.ts - b.ts || a.leaf_index - b.leaf_index);

describe('window reads over tiles', () => {
  const windows: [string, number, number, number][] = [
    ['everything', 0, Number.MAX_SAFE_INTEGER, 4000],
    ['ten minutes of a live trail', T + 600_000, T + 1_200_000, 4000],
    ['a window below the size', T + 100_000, T + 3_000_000, 2100],
    ['the backfill year', T - 365 * 86_400_000, T - TILE_MAX_SPAN_MS, 4000],
    ['nothing', T + 10_000_000, T + 20_000_000, 4000],
  ];
  it.each(windows)('pages %s in time order, every leaf once', async (_, since, until, size) => {
    const shown: string[] = [];
    let after: { ts: number; leaf_index: number } | null = null;
    for (;;) {
      const page = await windowLeaves(pool, tenant, { since, until }, size, after, 97);
      shown.push(...page.map((l) => `${l.ts} ${l.leaf_index} ${l.event_id} ${l.leaf_hash.toString('hex')}`));
      if (page.length < 97) break;
      after = page.at(-1)!;
    }
    expect(shown).toEqual(
      expected(since, until, size).map(
        (l) => `${l.ts} ${l.leaf_index} ${l.event_id} ${Buffer.from(l.leaf_hash).toString('hex')}`,
      ),
    );
  });

  const later: [number, number, number][] = [
    [T + 100_000, T + 3_000_000, 2100],
    [0, Number.MAX_SAFE_INTEGER, 100],
    [T - 365 * 86_400_000, T, 1600],
    [T + 100_000, T + 3_000_000, 4000],
  ];
  it.each(later)(
    'names the events of %i..%i appended after %i leaves, in leaf order',
    async (since, until, size) => {
      const expected = leaves.filter((l) => l.leaf_index >= size && l.ts >= since && l.ts < until);
      const ids = expected.map((l) => l.event_id);
      expect(await laterInWindow(pool, tenant, { since, until }, size, 5000)).toEqual(ids);
      expect(await laterInWindow(pool, tenant, { since, until }, size, 10)).toEqual(ids.slice(0, 10));
    },
  );
});
