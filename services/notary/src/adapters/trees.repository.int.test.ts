import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leafHashOf, migratePostgres, type AuditEventRecord } from '@audit/shared';
import { sampleRecord } from '@audit/shared/test-support';
import { uniqueNames } from '../../../../test/support/names.js';
import { freshPostgres } from '../../../../test/support/postgres.js';
import { leafKeys, storedLeaves } from '../../../../test/support/tree-leaves.js';
import { appendToTrees } from './trees.repository.js';

const names = uniqueNames('treesrepo');
let postgres: Awaited<ReturnType<typeof freshPostgres>>;
let pool: pg.Pool;

beforeAll(async () => {
  postgres = await freshPostgres(names);
  await migratePostgres(postgres.url);
  pool = new pg.Pool({ connectionString: postgres.url, max: 4 });
});
afterAll(async () => {
  await pool?.end();
  await postgres?.drop();
});

const events = (tenant: string, n: number) =>
  Array.from({ length: n }, (_, i) => sampleRecord({ tenant_id: tenant, resource_id: `r${i}` }));

async function leaves(tenant: string) {
  const keys = await leafKeys(pool, tenant);
  return (await storedLeaves(pool, tenant)).map(
    (l) => `${l.leaf_index} ${l.event_id} ${l.leaf_hash.toString('hex')} ${l.ts} ${keys.get(l.event_id)}`,
  );
}

const expected = (list: readonly AuditEventRecord[]) =>
  list.map((e, i) => `${i} ${e.event_id} ${Buffer.from(leafHashOf(e)).toString('hex')} ${e.timestamp} ${i}`);

describe('appendToTrees', () => {
  it('appends new events without a lookup, and a batch holding leaves already once each, in batch order', async () => {
    const [a, b] = [`a-${names.id}`, `b-${names.id}`];
    const first = [...events(a, 20), ...events(b, 3)];
    expect(await appendToTrees(pool, first)).toEqual({ appended: 23, known: 0 });

    // Known events among new ones (a redelivery overlapping new records), and one event twice in the batch.
    const more = events(a, 5);
    const mixed = [first[3]!, more[0]!, first[21]!, more[1]!, more[0]!, ...more.slice(2)];
    expect(await appendToTrees(pool, mixed)).toEqual({ appended: 5, known: 3 });
    expect(await appendToTrees(pool, [...first, ...more])).toEqual({ appended: 0, known: 28 });

    expect(await leaves(a)).toEqual(expected([...first.slice(0, 20), ...more]));
    expect(await leaves(b)).toEqual(expected(first.slice(20)));
    const { rows } = await pool.query<{ tenant_id: string; size: string }>(
      'SELECT tenant_id, size FROM integrity_trees WHERE tenant_id = ANY($1) ORDER BY tenant_id',
      [[a, b]],
    );
    expect(rows.map((r) => [r.tenant_id, Number(r.size)])).toEqual([
      [a, 25],
      [b, 3],
    ]);
  });

  it('gives each tree a number of its own, taking none for a tree that exists', async () => {
    const tenant = `c-${names.id}`;
    await appendToTrees(pool, events(tenant, 2));
    const numbers = async () =>
      (await pool.query<{ n: string }>('SELECT max(tree_id) AS n FROM integrity_trees')).rows[0]!.n;
    const before = await numbers();
    for (let i = 0; i < 3; i++) await appendToTrees(pool, events(tenant, 2));
    expect(await numbers()).toBe(before);
    await appendToTrees(pool, events(`d-${names.id}`, 1));
    expect(Number(await numbers())).toBe(Number(before) + 1);
  });
});
