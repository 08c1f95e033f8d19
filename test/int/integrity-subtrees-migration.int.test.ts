import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  appendLeaves,
  EMPTY_FRONTIER,
  frontierRoot,
  integrityStore,
  TreeStoreDamagedError,
} from '@audit/shared/integrity';
import { migratePostgres } from '@audit/shared/migrations';
import { verifyInclusion } from '@audit-trail/integrity-verifier';
import { uniqueNames } from '../support/names.js';
import { freshPostgres, migrationsUpTo } from '../support/postgres.js';

// Migration 0018 stores every fourth level's subtrees: the trees appended before it, when only every eighth was
// stored, get theirs made from the bands below (docs/integrity.md "The tree store").
const names = uniqueNames('subtreemigration');
let postgres: Awaited<ReturnType<typeof freshPostgres>> | undefined;
let pool: pg.Pool | undefined;

afterAll(async () => {
  await pool?.end();
  await postgres?.drop();
});

/** A tree of `size` random leaves as a notary of before 0018 stored it (every eighth level). */
async function oldTree(db: pg.Pool, tenant: string, size: number) {
  const hashes = Array.from({ length: size }, () => new Uint8Array(randomBytes(32)));
  const { frontier, completed } = appendLeaves(EMPTY_FRONTIER, hashes);
  await db.query(
    `INSERT INTO integrity_leaves (tenant_id, leaf_index, event_id, leaf_hash, ts)
     SELECT $1, i - 1, e, h, i FROM unnest($2::uuid[], $3::bytea[]) WITH ORDINALITY AS x (e, h, i)`,
    [tenant, hashes.map(() => randomUUID()), hashes.map((h) => Buffer.from(h))],
  );
  const old = completed.filter((s) => s.level > 0 && s.level % 8 === 0);
  await db.query(
    `INSERT INTO integrity_subtrees (tenant_id, level, node_index, hash)
     SELECT $1, * FROM unnest($2::smallint[], $3::bigint[], $4::bytea[])`,
    [tenant, old.map((s) => s.level), old.map((s) => s.index), old.map((s) => Buffer.from(s.hash))],
  );
  await db.query('INSERT INTO integrity_trees (tenant_id, size, frontier) VALUES ($1, $2, $3)', [
    tenant,
    size,
    Buffer.concat(frontier.hashes),
  ]);
  const expected = completed.filter((s) => s.level > 0 && s.level % 4 === 0);
  return { root: frontierRoot(frontier), hashes, expected };
}

// How a tree's rows are found: by the tenant's id before migration 0019, by the tree's number after it.
const BY_TENANT = 'tenant_id = $1';
const BY_TREE = 'tree_id = (SELECT tree_id FROM integrity_trees WHERE tenant_id = $1)';

const stored = async (db: pg.Pool, tenant: string, key = BY_TENANT) =>
  (
    await db.query<{ level: number; node_index: string; hash: Buffer }>(
      `SELECT level, node_index, hash FROM integrity_subtrees WHERE ${key} ORDER BY level, node_index`,
      [tenant],
    )
  ).rows.map((r) => `${r.level}:${r.node_index}:${r.hash.toString('hex')}`);

const leafRows = async (db: pg.Pool, tenant: string, key = BY_TENANT) =>
  (
    await db.query<{ row: string }>(
      `SELECT concat_ws(':', leaf_index, event_id, encode(leaf_hash, 'hex'), ts) AS row FROM integrity_leaves
       WHERE ${key} ORDER BY leaf_index`,
      [tenant],
    )
  ).rows.map((r) => r.row);

describe('migrations 0018 and 0019: subtrees of every fourth level, keyed by the tree number', () => {
  it("makes every fourth level's subtrees of the trees before it, moves them to tree numbers, and proofs read them", async () => {
    postgres = await freshPostgres(names);
    expect((await migratePostgres(postgres.url, migrationsUpTo(17))).applied.at(-1)).toBe(
      '17_integrity_leaf_times',
    );
    pool = new pg.Pool({ connectionString: postgres.url });
    // 70,000 leaves reach level 16 (so level 12 is made from the stored level 8, and 20 is not yet complete);
    // the others are a tree with one level-4 subtree and one with none.
    const trees = {
      big: await oldTree(pool, 'big', 70_000),
      small: await oldTree(pool, 'small', 17),
      tiny: await oldTree(pool, 'tiny', 15),
    };

    expect((await migratePostgres(postgres.url, migrationsUpTo(18))).applied).toEqual([
      '18_integrity_subtrees_every_fourth_level',
    ]);

    for (const [tenant, tree] of Object.entries(trees)) {
      const expected = tree.expected
        .sort((a, b) => a.level - b.level || a.index - b.index)
        .map((s) => `${s.level}:${s.index}:${Buffer.from(s.hash).toString('hex')}`);
      expect(await stored(pool, tenant)).toEqual(expected);
    }
    expect(trees.big.expected.filter((s) => s.level === 12)).toHaveLength(17);

    // Migration 0019 moves every leaf and subtree to its tree's number, unchanged.
    const before = new Map<string, [string[], string[]]>();
    for (const tenant of Object.keys(trees))
      before.set(tenant, [await leafRows(pool, tenant), await stored(pool, tenant)]);
    // A leaf without its tree row stops it, named, and changes nothing.
    await pool.query(
      "INSERT INTO integrity_leaves (tenant_id, leaf_index, event_id, leaf_hash) VALUES ('ghost', 0, $1, $2)",
      [randomUUID(), randomBytes(32)],
    );
    await expect(migratePostgres(postgres.url, migrationsUpTo(19))).rejects.toThrow(
      /without a tree row, of tenants: ghost/,
    );
    await pool.query("DELETE FROM integrity_leaves WHERE tenant_id = 'ghost'");
    expect((await migratePostgres(postgres.url, migrationsUpTo(19))).applied).toEqual([
      '19_integrity_tree_ids',
    ]);
    for (const [tenant, [leaves, subtrees]] of before) {
      expect(await leafRows(pool, tenant, BY_TREE)).toEqual(leaves);
      expect(await stored(pool, tenant, BY_TREE)).toEqual(subtrees);
    }
    const { rows: numbers } = await pool.query<{ tree_id: string }>('SELECT tree_id FROM integrity_trees');
    expect(new Set(numbers.map((r) => r.tree_id)).size).toBe(3);

    // The store reads the schema of the latest migration (leaves in tiles since 0020): proofs are made from the
    // subtrees these two made once the rest are applied.
    expect((await migratePostgres(postgres.url)).applied[0]).toBe('20_integrity_leaf_tiles');
    const store = integrityStore(pool);
    for (const index of [0, 15, 16, 4095, 4096, 65_535, 65_536, 69_999]) {
      const proof = await store.inclusionProof('big', index, 70_000);
      expect(verifyInclusion(trees.big.hashes[index]!, index, 70_000, proof, trees.big.root)).toBe(true);
    }
    await expect(
      pool.query('INSERT INTO integrity_subtrees VALUES ($1, 6, 0, $2)', [
        numbers[0]!.tree_id,
        randomBytes(32),
      ]),
    ).rejects.toThrow(/integrity_subtrees_level_check/);

    // A notary of before it, appending after it, leaves out levels 4, 12, 20: proofs over those leaves are made
    // from the band below; a leaf missing (here with the rest of the tile holding it) is still a damaged store.
    await pool.query(
      `DELETE FROM integrity_subtrees WHERE ${BY_TREE} AND level % 8 = 4 AND node_index * 2 ^ level >= 40000`,
      ['big'],
    );
    for (const index of [40_000, 45_055, 65_536, 69_999]) {
      const proof = await store.inclusionProof('big', index, 70_000);
      expect(verifyInclusion(trees.big.hashes[index]!, index, 70_000, proof, trees.big.root)).toBe(true);
    }
    await pool.query(
      `DELETE FROM integrity_tiles WHERE ${BY_TREE}
         AND first_index <= 69990 AND first_index + length(leaf_hashes) / 32 > 69990`,
      ['big'],
    );
    await expect(store.inclusionProof('big', 69_999, 70_000)).rejects.toThrow(TreeStoreDamagedError);
  });
});
