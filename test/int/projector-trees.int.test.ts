import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEventCodec, type AuditEventRecord, topics } from '@audit/shared/contract';
import { frontierRoot, integrityStore, leafHashOf, rootOf } from '@audit/shared/integrity';
import { DurableProducer } from '@audit/shared/platform';
import { sampleRecord } from '@audit/shared/test-support';
import { verifyConsistency, verifyInclusion } from '@audit-trail/integrity-verifier';
import { groupCaughtUp } from '../support/kafka-offsets.js';
import { uniqueNames } from '../support/names.js';
import { migratedPostgres, serviceLogin } from '../support/postgres.js';
import { cleanUp, projectorService, testKafka } from '../support/stack.js';
import { storedLeaves } from '../support/tree-leaves.js';
import { waitFor } from '../support/wait-for.js';
import type { ServiceProcess } from '../support/service-process.js';

const names = uniqueNames('ptrees');
const auditTopic = topics(names.topicPrefix, 1).auditEvents.name;
const kafka = testKafka();
const codec = auditEventCodec();
const tenantA = `${names.tenant}-a`;
const tenantB = `${names.tenant}-b`;
let postgres: Awaited<ReturnType<typeof migratedPostgres>>;
let db: pg.Pool;
const processes: ServiceProcess[] = [];

/** The projector, its trees on (or off) in the test's database; small writes, so that a SIGKILL lands between two. */
function projector(trees = true) {
  const p = projectorService(names, {
    PROJECTOR_TREES: String(trees),
    DATABASE_URL: postgres.url,
    PROJECTOR_BATCH_SIZE: '200',
  });
  processes.push(p);
  return p;
}

const caughtUp = () => groupCaughtUp(kafka, names.groupId, auditTopic);
const position = async () =>
  (
    await db.query<{ next: string }>(
      'SELECT sum(next_offset) AS next FROM integrity_positions WHERE topic = $1',
      [auditTopic],
    )
  ).rows[0]!.next;

const events = (tenant: string, n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => sampleRecord({ tenant_id: tenant, resource_id: `r${from + i}` }));

async function publish(records: (AuditEventRecord | Buffer)[]) {
  const producer = new DurableProducer(kafka);
  await producer.connect();
  await producer.send({
    topic: auditTopic,
    acks: -1,
    messages: records.map((r) =>
      // Each tenant on a partition of its own, whatever their names hash to: the tests rely on it.
      Buffer.isBuffer(r)
        ? { key: tenantA, value: r, partition: 0 }
        : { key: r.tenant_id, value: codec.encode(r), partition: r.tenant_id === tenantB ? 1 : 0 },
    ),
  });
  await producer.disconnect();
}

const treeSize = async (tenant: string) =>
  Number(
    (await db.query<{ size: string }>('SELECT size FROM integrity_trees WHERE tenant_id = $1', [tenant]))
      .rows[0]?.size ?? 0,
  );

async function stored(tenant: string, store: pg.Pool = db) {
  const leaves = await storedLeaves(store, tenant);
  const tree = await store.query<{ size: string; frontier: Buffer }>(
    'SELECT size, frontier FROM integrity_trees WHERE tenant_id = $1',
    [tenant],
  );
  const subtrees = await store.query<{ level: number; node_index: string; hash: Buffer }>(
    'SELECT level, node_index, hash FROM integrity_subtrees WHERE tree_id = (SELECT tree_id FROM integrity_trees WHERE tenant_id = $1) ORDER BY level, node_index',
    [tenant],
  );
  const { size, frontier } = tree.rows[0]!;
  const hashes = Array.from({ length: frontier.length / 32 }, (_, i) =>
    frontier.subarray(i * 32, i * 32 + 32),
  );
  return {
    leaves,
    root: Buffer.from(frontierRoot({ size: Number(size), hashes })).toString('hex'),
    subtrees: subtrees.rows.map((s) => ({ level: s.level, index: Number(s.node_index), hash: s.hash })),
  };
}

const rootHex = (records: readonly AuditEventRecord[]) =>
  Buffer.from(rootOf(records.map((e) => leafHashOf(e)))).toString('hex');

beforeAll(async () => {
  postgres = await migratedPostgres(names);
  db = new pg.Pool({ connectionString: postgres.url, max: 2 });
});
afterAll(async () => {
  for (const p of processes) await p.stop('SIGKILL');
  await db?.end();
  await postgres?.drop();
  await cleanUp(names, [names.groupId]);
});

describe("the projector's trees", () => {
  const a = events(tenantA, 600);
  const b = events(tenantB, 5);

  it("appends each tenant's events in topic order, each once, also those projected while its trees were off", async () => {
    // Projected with the trees off: turned on, the trees begin with the oldest record the topic keeps.
    const off = projector(false);
    await off.start();
    // Interleaved tenants, an event sent twice, and a record the projector dead-letters.
    await publish([...a.slice(0, 300), b[0]!, a[3]!, Buffer.from('{"not":"avro"}'), ...b.slice(1)]);
    await waitFor('the projection caught up', caughtUp);
    expect(await off.stop()).toBe(0);
    const first = projector();
    await first.start();
    await publish([...a.slice(300), a[299]!]);
    await waitFor(
      'both trees grown',
      async () => (await treeSize(tenantA)) === 600 && (await treeSize(tenantB)) === 5,
    );
    await waitFor('every record handled', caughtUp);
    // 300 + 1 + 1 + 1 + 4 records, then 300 + 1: every partition appended up to its end.
    expect(await position()).toBe('608');

    const treeA = await stored(tenantA);
    expect(treeA.leaves.map((l) => l.event_id)).toEqual(a.map((e) => e.event_id));
    expect(treeA.leaves.map((l) => Number(l.leaf_index))).toEqual(a.map((_, i) => i));
    expect(treeA.leaves[7]!.leaf_hash).toEqual(Buffer.from(leafHashOf(a[7]!)));
    expect(treeA.root).toBe(rootHex(a));
    expect(treeA.subtrees.map((s) => [s.level, s.index])).toEqual([
      ...Array.from({ length: 37 }, (_, i) => [4, i]),
      [8, 0],
      [8, 1],
    ]);
    expect(treeA.subtrees[38]!.hash.toString('hex')).toBe(rootHex(a.slice(256, 512)));
    expect(treeA.subtrees[36]!.hash.toString('hex')).toBe(rootHex(a.slice(576, 592)));
    expect((await stored(tenantB)).root).toBe(rootHex(b));
    expect(await first.stop()).toBe(0);
  });

  it('builds nothing more when the topic is read again, after a SIGKILL while events flow', async () => {
    const more = events(tenantA, 3000, 600);
    const killed = projector();
    await killed.start();
    const sending = (async () => {
      for (let i = 0; i < more.length; i += 300) await publish(more.slice(i, i + 300));
    })();
    await waitFor('the projector in the middle of them', async () => (await treeSize(tenantA)) > 600);
    await killed.stop('SIGKILL');
    await sending;
    const restarted = projector();
    await restarted.start();
    await waitFor('the projection caught up', caughtUp);
    // Leaves of before migration 0017 had no time (migration 0020 gave each a tile of its own): reading the topic
    // again gives them their event's.
    await db.query(
      `WITH gone AS (DELETE FROM integrity_tiles WHERE tree_id = (SELECT tree_id FROM integrity_trees WHERE tenant_id = $1)
         AND first_index < 700 RETURNING *)
       INSERT INTO integrity_tiles (tree_id, first_index, leaf_hashes, event_ids)
       SELECT tree_id, first_index + i, substring(leaf_hashes FROM i * 32 + 1 FOR 32), substring(event_ids FROM i * 16 + 1 FOR 16)
       FROM gone, generate_series(0, length(leaf_hashes) / 32 - 1) AS i`,
      [tenantA],
    );
    expect((await storedLeaves(db, tenantA)).filter((l) => l.ts === null).length).toBeGreaterThanOrEqual(700);
    // An operator moves the positions back (docs/operations.md "Integrity"): the running projector reads the
    // topic again from there, every write redone, none adding a leaf.
    // The next record of a partition sends the projector back to its position.
    const end = Number(await position());
    await db.query('UPDATE integrity_positions SET next_offset = 0 WHERE topic = $1', [auditTopic]);
    const [last, lastB] = [events(tenantA, 1, 3600), events(tenantB, 1, 5)];
    await publish([...last, ...lastB]);
    await waitFor('the topic read again', async () => Number(await position()) === end + 2);
    await waitFor('the leaves timed', async () =>
      (await storedLeaves(db, tenantA)).every((l) => l.ts !== null),
    );
    const all = [...a, ...more, ...last];
    const treeA = await stored(tenantA);
    expect(treeA.leaves.map((l) => l.event_id)).toEqual(all.map((e) => e.event_id));
    expect(treeA.root).toBe(rootHex(all));
    expect(treeA.subtrees.filter((s) => s.level === 8)).toHaveLength(Math.floor(all.length / 256));
    expect(treeA.subtrees.filter((s) => s.level === 4)).toHaveLength(Math.floor(all.length / 16));
    expect(treeA.leaves.map((l) => l.ts)).toEqual(all.map((e) => e.timestamp));
    expect((await stored(tenantB)).root).toBe(rootHex([...b, ...lastB]));
    expect(await restarted.stop()).toBe(0);
  });

  it('proves inclusion and consistency at any size from the stored leaves and subtrees, as the leaves say', async () => {
    const hashes = (await stored(tenantA)).leaves.map((l) => l.leaf_hash);
    const store = integrityStore(db);
    const root = (size: number) => rootOf(hashes.slice(0, size));
    for (const size of [1, 2, 255, 256, 257, 511, 512, 700, 3000, 3600]) {
      for (const index of [0, 1, 255, 256, 300, 511, 699, 2999, size - 1].filter((i) => i < size)) {
        const proof = await store.inclusionProof(tenantA, index, size);
        expect(verifyInclusion(hashes[index]!, index, size, proof, root(size)), `${index} in ${size}`).toBe(
          true,
        );
      }
    }
    for (const [from, to] of [
      [1, 3600],
      [255, 256],
      [256, 257],
      [300, 2048],
      [700, 3600],
      [3599, 3600],
    ] as const) {
      const proof = await store.consistencyProof(tenantA, from, to);
      expect(verifyConsistency(from, to, proof, root(from), root(to)), `${from} to ${to}`).toBe(true);
    }
  });

  it('reads a partition again when its position is moved back while a write of it waits to append', async () => {
    const running = projector();
    await running.start();
    const earlier = (await stored(tenantB)).leaves;
    const end = Number(await position());
    const more = events(tenantB, 4, 6);
    // The test holds partition 1's position, so that the projector's write of `more` waits on it with its events
    // checked against the position as it was.
    const holder = await db.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        'SELECT next_offset FROM integrity_positions WHERE topic = $1 AND partition = 1 FOR UPDATE',
        [auditTopic],
      );
      await publish(more);
      await waitFor('the write waiting for the position', async () => {
        const { rows } = await db.query<{ n: string }>(
          // The projector's own role: what its sessions run and wait for is not ours to read, their locks are.
          `SELECT count(DISTINCT l.pid) AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid)
           WHERE NOT l.granted AND a.datname = current_database() AND a.usename = $1`,
          [serviceLogin('projector')],
        );
        return rows[0]!.n === '1';
      });
      await holder.query(
        'UPDATE integrity_positions SET next_offset = 0 WHERE topic = $1 AND partition = 1',
        [auditTopic],
      );
      await holder.query('COMMIT');
    } finally {
      // Failed before its commit, the test's transaction must not hold the position lock past the test.
      holder.release(true);
    }
    await waitFor('the partition read again', async () => Number(await position()) === end + more.length);
    await waitFor('the projection caught up', caughtUp);
    expect(running.logged()).toContainEqual(
      expect.objectContaining({ partition: 1, msg: 'trees behind the partition: it is read again' }),
    );
    const treeB = await stored(tenantB);
    expect(treeB.leaves.map((l) => l.event_id)).toEqual([...earlier, ...more].map((e) => e.event_id));
    const hashes = [...earlier.map((l) => l.leaf_hash), ...more.map((e) => leafHashOf(e))];
    expect(treeB.root).toBe(Buffer.from(rootOf(hashes)).toString('hex'));
    expect(await running.stop()).toBe(0);
  });

  it('rebuilds the same trees, leaf for leaf, from the topic into an empty tree store', async () => {
    const empty = await migratedPostgres({ ...names, database: `${names.database}_rebuilt` });
    const rebuilt = new pg.Pool({ connectionString: empty.url, max: 1 });
    // The same consumer group, caught up: its trees begin at the topic's oldest record and read it all again.
    const again = projectorService(names, { PROJECTOR_TREES: 'true', DATABASE_URL: empty.url });
    try {
      await again.start();
      const sizeIn = async (pool: pg.Pool, tenant: string) =>
        (
          await pool.query<{ size: string }>('SELECT size FROM integrity_trees WHERE tenant_id = $1', [
            tenant,
          ])
        ).rows[0]?.size;
      for (const tenant of [tenantA, tenantB]) {
        const size = await sizeIn(db, tenant);
        await waitFor(`${tenant}'s tree rebuilt`, async () => (await sizeIn(rebuilt, tenant)) === size);
      }
      for (const tenant of [tenantA, tenantB]) {
        const [was, is] = [await stored(tenant), await stored(tenant, rebuilt)];
        expect(is.leaves).toEqual(was.leaves);
        expect(is.subtrees).toEqual(was.subtrees);
        expect(is.root).toBe(was.root);
      }
      expect(await again.stop()).toBe(0);
    } finally {
      if (again.running) await again.stop('SIGKILL');
      await rebuilt.end();
      await empty.drop();
    }
  });

  it('refuses to run over the topic once its partition count differs from the one the trees began over', async () => {
    await db.query('UPDATE integrity_topics SET partitions = partitions - 1 WHERE topic = $1', [auditTopic]);
    const refused = projector();
    refused.launch();
    await waitFor('the projector to exit', async () => !refused.running);
    expect(await refused.stop()).toBe(1);
    expect(refused.logged().find((l) => l.level === 60)).toMatchObject({
      msg: 'the trees cannot go on; stopping',
      err: { message: expect.stringMatching(/has 6 partitions, its trees were begun over 5/) },
    });
  });
});
