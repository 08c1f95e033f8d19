import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEventRecord } from '@audit/shared/contract';
import { leafHashOf } from '@audit/shared/integrity';
import { migratePostgres } from '@audit/shared/migrations';
import { sampleRecord } from '@audit/shared/test-support';
import { uniqueNames } from '../../../../test/support/names.js';
import { freshPostgres } from '../../../../test/support/postgres.js';
import { leafKeys, storedLeaves } from '../../../../test/support/tree-leaves.js';
import type { TreeBatch } from '../domain/tree-batch.js';
import { treePositions } from './tree-positions.repository.js';
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

/** Records of one partition at consecutive offsets from `first`, as a write gives them to the trees. */
const topic = `audit-${names.id}`;
const batchOf = (list: readonly AuditEventRecord[], first: number, partition = 0): TreeBatch => ({
  runs: [{ topic, partition, first: BigInt(first), last: BigInt(first + list.length - 1) }],
  events: list,
  sources: list.map((_, i) => ({ topic, partition, offset: String(first + i) })),
});

const positions = () => treePositions(pool, topic);

describe('appendToTrees', () => {
  beforeAll(() =>
    positions().begin(
      new Map([
        [0, '0'],
        [1, '0'],
        [2, '100'],
      ]),
    ),
  );

  it('appends new events without a lookup, and a batch holding leaves already once each, in batch order', async () => {
    const [a, b] = [`a-${names.id}`, `b-${names.id}`];
    const first = [...events(a, 20), ...events(b, 3)];
    expect(await appendToTrees(pool, batchOf(first, 0))).toEqual({
      appended: 23,
      known: 0,
      behind: [],
    });

    // Re-sent events among new ones, and one event twice in the write.
    const more = events(a, 5);
    const mixed = [first[3]!, more[0]!, first[21]!, more[1]!, more[0]!, ...more.slice(2)];
    expect(await appendToTrees(pool, batchOf(mixed, 23))).toMatchObject({ appended: 5, known: 3 });
    // The same write redone (a crash before its offsets were committed) adds nothing.
    expect(await appendToTrees(pool, batchOf(mixed, 23))).toMatchObject({ appended: 0, known: 0 });

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
    expect(await positions().of(0)).toBe(31n);
  });

  it("appends a partition's records from its position on, and leaves out a partition whose trees are behind", async () => {
    const tenant = `p-${names.id}`;
    const list = events(tenant, 10);
    // Partition 2 is appended up to offset 100: records before it are in the trees already.
    expect(await appendToTrees(pool, batchOf(list, 96, 2))).toEqual({
      appended: 6,
      known: 0,
      behind: [],
    });
    expect(await leaves(tenant)).toEqual(expected(list.slice(4)));
    expect(await positions().of(2)).toBe(106n);

    // A write from offset 107 on would leave 106 out: nothing of it is appended, the position stays.
    expect(await appendToTrees(pool, batchOf(events(tenant, 3), 107, 2))).toEqual({
      appended: 0,
      known: 0,
      behind: [{ topic, partition: 2 }],
    });
    expect(await positions().of(2)).toBe(106n);
    expect(await leaves(tenant)).toHaveLength(6);
    await expect(appendToTrees(pool, batchOf(list, 0, 7))).rejects.toThrow(
      /partition 7 of .* has no tree position/,
    );
  });

  it('takes writes of the same partitions made at once by two owners one after the other: each event once', async () => {
    const [q, r] = [`q-${names.id}`, `r-${names.id}`];
    await positions().begin(
      new Map([
        [3, '0'],
        [4, '0'],
      ]),
    );
    const [listQ, listR] = [events(q, 15), events(r, 15)];
    const both = (a: TreeBatch, b: TreeBatch): TreeBatch => ({
      runs: [...a.runs, ...b.runs],
      events: [...a.events, ...b.events],
      sources: [...a.sources, ...b.sources],
    });
    // An old owner's write of offsets 0-9 and a new owner's of 0-14 (its partitions in the other order) at once.
    const outcomes = await Promise.all([
      appendToTrees(pool, both(batchOf(listQ.slice(0, 10), 0, 3), batchOf(listR.slice(0, 10), 0, 4))),
      appendToTrees(pool, both(batchOf(listR, 0, 4), batchOf(listQ, 0, 3))),
    ]);
    expect(outcomes.reduce((n, o) => n + o.appended, 0)).toBe(30);
    expect(await leaves(q)).toEqual(expected(listQ));
    expect(await leaves(r)).toEqual(expected(listR));
    expect([await positions().of(3), await positions().of(4)]).toEqual([15n, 15n]);
  });

  it('gives each tree a number of its own, taking none for a tree that exists', async () => {
    const tenant = `c-${names.id}`;
    let offset = 0;
    const append = (list: readonly AuditEventRecord[]) => {
      const batch = batchOf(list, offset, 1);
      offset += list.length;
      return appendToTrees(pool, batch);
    };
    await append(events(tenant, 2));
    const numbers = async () =>
      (await pool.query<{ n: string }>('SELECT max(tree_id) AS n FROM integrity_trees')).rows[0]!.n;
    const before = await numbers();
    for (let i = 0; i < 3; i++) await append(events(tenant, 2));
    expect(await numbers()).toBe(before);
    await append(events(`d-${names.id}`, 1));
    expect(Number(await numbers())).toBe(Number(before) + 1);
  });
});
