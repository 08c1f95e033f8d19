import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '@audit/shared/platform';
import { expectTrailWhole, type WatchedTenant } from '../support/cluster-oracle.js';
import { api, cluster, mintKey, nativeCluster, ops } from '../support/cluster-shape.js';
import { clusterTraffic } from '../support/cluster-traffic.js';
import { uniqueNames } from '../support/names.js';
import { storedLeaves } from '../support/tree-leaves.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

// The audit topic grows into a new generation with twice its partitions while events flow through the balancers
// (three brokers, replication 3, two of every consumer): the oracle, and each tenant's leaves in the order its
// events were accepted, across the two generations (docs/topic-growth.md).
const names = uniqueNames('growth');
const receiver = await webhookReceiver(() => 204);
const TENANTS = 4;
let tenants: WatchedTenant[] = [];

interface Generations {
  generations: { generation: number; topic: string; partitions: number; writes: string }[];
}

beforeAll(async () => {
  await cluster('up');
  tenants = await Promise.all(
    Array.from({ length: TENANTS }, async (_, i) => {
      const tenant = `${names.tenant}-${i}`;
      const key = await mintKey(tenant, 'audit:read,webhooks:write');
      const path = `/growth-${i}`;
      const res = await api(key, 'POST', '/audit/webhooks', { url: receiver.url(path), event_filter: [] });
      expect(res.status, res.text).toBe(201);
      return { tenant, key, path };
    }),
  );
});
afterAll(() => receiver.close());

describe('the audit topic grows on the cluster', () => {
  it('doubles its partitions while events flow: nothing lost, each tenant in its order in its tree', async () => {
    const listed = await ops(['topics', 'list', '--json']);
    const newest = (JSON.parse(listed.out) as Generations).generations.at(-1)!;
    const flow = clusterTraffic(tenants, nativeCluster);
    await waitFor('traffic flowing', async () => flow.flowing(0));
    const started = Date.now();
    const grown = await ops(['topics', 'grow', '--partitions', String(newest.partitions * 2), '--json']);
    expect(grown.code, grown.err).toBe(0);
    const result = JSON.parse(grown.out) as { generation: number; topic: string; duration_ms: number };
    expect(result.generation).toBe(newest.generation + 1);
    await waitFor('traffic flowing after the growth', async () => flow.flowing(Date.now() - 1000));
    await sleep(3000);
    await flow.stop();
    const writesHeld = flow.ingests.filter((a) => a.at > started && a.status !== 202);
    console.log(
      `growth to ${newest.partitions * 2} partitions took ${result.duration_ms} ms; ingest answers other than 202 ` +
        `meanwhile: ${writesHeld.length} (503 with Retry-After)`,
    );
    expect(flow.unexpected(flow.ingests, 202)).toEqual([]);
    expect(flow.unexpected(flow.reads, 200)).toEqual([]);

    const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    try {
      for (const t of tenants) {
        const accepted = flow.accepted.get(t.tenant)!;
        await expectTrailWhole(t, accepted, (path) => receiver.at(path), nativeCluster);
        const leaves = (await storedLeaves(db, t.tenant))
          .map((l) => l.event_id)
          .filter((id) => accepted.has(id));
        expect(leaves).toEqual([...accepted]);
      }
    } finally {
      await db.end();
    }
    const after = JSON.parse((await ops(['topics', 'list', '--json'])).out) as Generations;
    expect(after.generations.map((g) => g.writes)).toEqual([
      ...after.generations.slice(0, -1).map(() => 'sealed'),
      'open',
    ]);
  });
});
