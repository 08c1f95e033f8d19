import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootOf } from '@audit-trail/integrity-verifier';
import { expectTrailWhole, type WatchedTenant } from '../support/cluster-oracle.js';
import { api, cluster, mintKey, nativeCluster, roleHolder } from '../support/cluster-shape.js';
import { clusterTraffic } from '../support/cluster-traffic.js';
import { uniqueNames } from '../support/names.js';
import { storedLeaves } from '../support/tree-leaves.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

// The Postgres primary dies with SIGKILL right after a burst of acknowledged writes, while events flow in and
// reads go on; the operator promotes the standby (`cluster.sh promote`, docs/operations.md "Postgres failover").
// The services follow through HAProxy without a restart. Replication is asynchronous: what the primary
// acknowledged and had not yet sent is lost (the RPO, measured and printed here), and the trees recover it from
// the audit topic, since they are re-read from their own positions.
const names = uniqueNames('promotion');
const receiver = await webhookReceiver(() => 204);
const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
db.on('error', () => undefined);
let watched: WatchedTenant;

interface Checkpoint {
  tree_size: number;
  root_hash: string;
}

async function latestCheckpoint(key: string): Promise<Checkpoint | undefined> {
  const res = await api(key, 'GET', '/audit/integrity/checkpoints?limit=1');
  if (res.status !== 200) return undefined;
  return (JSON.parse(res.text) as { checkpoints: Checkpoint[] }).checkpoints[0];
}

beforeAll(async () => {
  await cluster('up');
  const tenant = names.tenant;
  const key = await mintKey(tenant, 'audit:read,webhooks:write');
  const path = '/promotion';
  const res = await api(key, 'POST', '/audit/webhooks', { url: receiver.url(path), event_filter: [] });
  expect(res.status, res.text).toBe(201);
  watched = { tenant, key, path };
});
afterAll(async () => {
  await receiver.close();
  await db.end();
  // The former primary comes back as the new primary's standby, made from it anew.
  await cluster('up');
});

describe('Postgres standby promotion', () => {
  it('loses no tree append and forks no checkpoint, and keys, rate limits and webhooks work after it; a switch-over back loses nothing', async () => {
    const flow = clusterTraffic([watched], nativeCluster);
    await waitFor('traffic flowing', async () => flow.flowing(0));
    // A checkpoint a client has seen before the crash: the tree after the promotion must extend it.
    const seen = await waitFor('a checkpoint of the tenant', async () => {
      const c = await latestCheckpoint(watched.key);
      return c && c.tree_size > 0 && c;
    });
    // The burst: keys minted at once, each acknowledged by its commit on the primary; then the crash.
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => mintKey(`${names.tenant}-burst-${i}`, 'audit:read')),
    );
    const primary = await roleHolder('postgres-', 'primary');
    const killedAt = Date.now();
    await cluster('kill', primary);
    await cluster('promote');
    const promotedAt = Date.now();
    await waitFor('traffic flowing after the promotion', async () => flow.flowing(promotedAt));
    const flowingAt = Date.now();
    expect(await roleHolder('postgres-', 'primary')).not.toBe(primary);

    // Keys: minted after it, they work; of the burst, what replication had not carried is the RPO.
    // (A gateway that found Postgres gone reports itself not ready until its pool answers again; HAProxy leaves
    // it out meanwhile, and answers as the gateway would, 503 with Retry-After.)
    const fresh = await mintKey(`${names.tenant}-after`, 'audit:read');
    await waitFor('a key minted after the promotion works', async () => {
      const res = await api(fresh, 'GET', '/audit/events?limit=1');
      return res.status === 200;
    });
    const lost = (await Promise.all(burst.map((k) => api(k, 'GET', '/audit/events?limit=1')))).filter(
      (r) => r.status === 401,
    ).length;
    // Rate limits: the new primary holds the buckets, and counts each request. The other gateway may still be
    // getting its pool back (HAProxy's 503, as above): the request is asked until a gateway serves it.
    const second = await waitFor('a second request served', async () => {
      const res = await fetch(`${process.env.GATEWAY_URL}/api/v2/public/audit/events?limit=1`, {
        headers: { authorization: `Bearer ${fresh}` },
      });
      return res.status === 200 ? res : undefined;
    });
    const remaining = second.headers.get('ratelimit-remaining');
    expect(remaining).not.toBeNull();
    expect(Number(remaining)).toBeLessThan(1000);

    // And back, as an operator switches over on purpose: the old primary made the new one's standby (`up`), then
    // promoted while the other still runs, which is stopped first and only once the standby has all it wrote.
    await cluster('up');
    await cluster('promote');
    expect(await roleHolder('postgres-', 'primary')).toBe(primary);
    const backAt = Date.now();
    await waitFor('traffic flowing after the switch-over', async () => flow.flowing(backAt));
    await flow.stop();
    // A clean switch-over loses nothing: every key minted before it still works.
    const afterSwitch = await Promise.all(
      [fresh, ...burst].map((k) => api(k, 'GET', '/audit/events?limit=1')),
    );
    expect(afterSwitch.filter((r) => r.status === 401)).toHaveLength(lost);

    expect(flow.unexpected(flow.ingests, 202)).toEqual([]);
    expect(flow.unexpected(flow.reads, 200)).toEqual([]);
    await expectTrailWhole(watched, flow.accepted.get(watched.tenant)!, receiver.at, nativeCluster);
    // No fork: the first leaves of the tree as it is now have the root of the checkpoint seen before the crash.
    const leaves = await storedLeaves(db, watched.tenant);
    const rootThen = rootOf(leaves.slice(0, seen.tree_size).map((l) => new Uint8Array(l.leaf_hash)));
    expect(Buffer.from(rootThen).toString('base64')).toBe(seen.root_hash);
    console.info(
      `promotion: ${lost} of ${burst.length} keys acknowledged just before the crash lost (RPO); traffic ` +
        `flowing ${((flowingAt - promotedAt) / 1000).toFixed(1)} s after the promotion, ` +
        `${((promotedAt - killedAt) / 1000).toFixed(1)} s after the crash; 503 answers: ` +
        `${flow.ingests.filter((a) => a.status === 503).length} ingest, ` +
        `${flow.reads.filter((a) => a.status === 503).length} reads`,
    );
  }, 600_000);
});
