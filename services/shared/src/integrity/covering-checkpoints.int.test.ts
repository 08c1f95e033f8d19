import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { uniqueNames } from '../../../../test/support/names.js';
import { freshPostgres } from '../../../../test/support/postgres.js';
import { migratePostgres } from '../migrations/postgres.migrator.js';
import { integrityStore } from './integrity.store.js';

const names = uniqueNames('covering');
const tenant = `c-${names.id}`;
const other = `o-${names.id}`;
let postgres: Awaited<ReturnType<typeof freshPostgres>>;
let pool: pg.Pool;
const ours = Array.from({ length: 10 }, () => randomUUID());
const theirs = Array.from({ length: 10 }, () => randomUUID());

/** A tree of `ids` in order, and checkpoints of it at `sizes`, each made at its size in seconds. */
async function tree(owner: string, ids: string[], sizes: number[]) {
  const { rows } = await pool.query<{ tree_id: string }>(
    'INSERT INTO integrity_trees (tenant_id) VALUES ($1) RETURNING tree_id',
    [owner],
  );
  await pool.query(
    'INSERT INTO integrity_leaf_events SELECT $1, e, i - 1 FROM unnest($2::uuid[]) WITH ORDINALITY AS l(e, i)',
    [rows[0]!.tree_id, ids],
  );
  for (const size of sizes) {
    await pool.query(
      `INSERT INTO integrity_checkpoints (tenant_id, tree_size, root_hash, made_at, key_name, note)
       VALUES ($1, $2, $3, $4, $5, '')`,
      [owner, size, randomBytes(32), size * 1000, names.id],
    );
  }
}

beforeAll(async () => {
  postgres = await freshPostgres(names);
  await migratePostgres(postgres.url);
  pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
  await pool.query(
    `INSERT INTO integrity_keys (name, public_key, verifier_key, status, created_by) VALUES ($1, $2, $1, 'active', 'test')`,
    [names.id, randomBytes(32)],
  );
  await tree(tenant, ours, [3, 7]);
  // The other tenant's tree reaches further: its checkpoints must not answer for ours.
  await tree(other, theirs, [5, 10]);
});
afterAll(async () => {
  await pool?.end();
  await postgres?.drop();
});

it('gives each leaf the smallest checkpoint holding it, null past the last, and nothing for ids of no leaf of the tenant', async () => {
  const unknown = randomUUID();
  const found = await integrityStore(pool).coveringCheckpoints(tenant, [...ours, unknown, theirs[0]!]);
  expect(Object.fromEntries(found)).toEqual(
    Object.fromEntries(
      ours.map((id, index) => {
        const size = index < 3 ? 3 : index < 7 ? 7 : null;
        return [id, size === null ? null : { tree_size: size, made_at: size * 1000 }];
      }),
    ),
  );
});

it('answers an empty question with nothing', async () => {
  expect((await integrityStore(pool).coveringCheckpoints(tenant, [])).size).toBe(0);
});
