import { generateKeyPairSync } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '@audit/shared/migrations';
import { uniqueNames } from '../../../../test/support/names.js';
import { freshPostgres } from '../../../../test/support/postgres.js';
import { signDue } from './checkpointer.js';

const names = uniqueNames('checkpointer');
let postgres: Awaited<ReturnType<typeof freshPostgres>>;
let pool: pg.Pool;
const key = { name: `key-${names.id}`, privateKey: generateKeyPairSync('ed25519').privateKey };
const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;

beforeAll(async () => {
  postgres = await freshPostgres(names);
  await migratePostgres(postgres.url);
  pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
  await pool.query(
    `INSERT INTO integrity_keys (name, public_key, verifier_key, status, created_by)
     VALUES ($1, $2, $1, 'active', 'test')`,
    [key.name, Buffer.alloc(32)],
  );
});
afterAll(async () => {
  await pool?.end();
  await postgres?.drop();
});

/** A tree of `size` leaves (a frontier of made-up hashes, one per bit of the size) whose new leaves wait since then. */
async function tree(tenant: string, size: number, waitingSince: number) {
  const frontier = Buffer.alloc(32 * size.toString(2).replaceAll('0', '').length, 7);
  await pool.query(
    `INSERT INTO integrity_trees (tenant_id, size, frontier, unsigned_since) VALUES ($1, $2, $3, $4)`,
    [tenant, size, frontier, waitingSince],
  );
}

describe('signDue', () => {
  it('signs the trees whose new leaves number the count or have waited the interval, from the boundary on, and no other', async () => {
    await tree('by-count', 150, NOW - 1000);
    await tree('by-count-just', 100, NOW - 1000);
    await tree('by-time', 3, NOW - 2 * HOUR);
    await tree('by-time-just', 5, NOW - HOUR);
    await tree('not-yet', 99, NOW - HOUR + 1);
    const settings = { logName: 'audit.example', intervalMs: HOUR, every: 100 };
    expect(await signDue(pool, key, settings, () => NOW)).toBe(4);
    const { rows } = await pool.query<{ tenant_id: string; tree_size: string; key_name: string }>(
      'SELECT tenant_id, tree_size, key_name FROM integrity_checkpoints ORDER BY tenant_id',
    );
    expect(rows).toEqual([
      { tenant_id: 'by-count', tree_size: '150', key_name: key.name },
      { tenant_id: 'by-count-just', tree_size: '100', key_name: key.name },
      { tenant_id: 'by-time', tree_size: '3', key_name: key.name },
      { tenant_id: 'by-time-just', tree_size: '5', key_name: key.name },
    ]);
    const trees = await pool.query<{ tenant_id: string; signed_size: string; unsigned_since: string | null }>(
      'SELECT tenant_id, signed_size, unsigned_since FROM integrity_trees ORDER BY tenant_id',
    );
    expect(trees.rows).toEqual([
      { tenant_id: 'by-count', signed_size: '150', unsigned_since: null },
      { tenant_id: 'by-count-just', signed_size: '100', unsigned_since: null },
      { tenant_id: 'by-time', signed_size: '3', unsigned_since: null },
      { tenant_id: 'by-time-just', signed_size: '5', unsigned_since: null },
      { tenant_id: 'not-yet', signed_size: '0', unsigned_since: String(NOW - HOUR + 1) },
    ]);
    // Signed, a tree is due again only once new leaves wait: nothing more now.
    expect(await signDue(pool, key, settings, () => NOW)).toBe(0);
  });
});
