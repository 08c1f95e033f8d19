import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cluster, mintKey, nativeCluster, roleHolder } from '../support/cluster-shape.js';
import { expectTrailWhole, type WatchedTenant } from '../support/cluster-oracle.js';
import { clusterTraffic, type Answer } from '../support/cluster-traffic.js';
import { uniqueNames } from '../support/names.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

// One engine process after the other dies with SIGKILL while events flow in and reads go on, and comes back:
// a Kafka broker, the ClickHouse replica the reads and writes prefer, the ZooKeeper leader, and a dispatcher.
// Then the oracle: every accepted event listed once, every tenant's tree verifies, every event delivered.
const names = uniqueNames('failover');
const receiver = await webhookReceiver(() => 204);

let tenants: WatchedTenant[] = [];

/** The shard (0 or 1) a tenant's rows live on: the Distributed tables shard by cityHash64(tenant_id). */
async function shardOf(tenant: string): Promise<number> {
  const query = `SELECT cityHash64('${tenant}') % 2 FORMAT TabSeparated`;
  const res = await fetch(`${process.env.CLICKHOUSE_URL}/?query=${encodeURIComponent(query)}`);
  return Number((await res.text()).trim());
}

/** A tenant on each shard: killing one shard's preferred replica must hold neither tenant's reads. */
async function tenantsOnBothShards(): Promise<string[]> {
  const byShard = new Map<number, string>();
  for (let i = 0; byShard.size < 2; i++) {
    const tenant = `${names.tenant}-${i}`;
    const shard = await shardOf(tenant);
    if (!byShard.has(shard)) byShard.set(shard, tenant);
  }
  return [...byShard.values()];
}

beforeAll(async () => {
  // The services are started by `up` (the tier starts the engines only); the dispatchers take the tier's
  // allowance of loopback webhook targets, so that the test's receiver on 127.0.0.1 can be an endpoint.
  await cluster('up');
  tenants = await Promise.all(
    (await tenantsOnBothShards()).map(async (tenant, i) => {
      const key = await mintKey(tenant, 'audit:read,webhooks:write');
      const path = `/failover-${i}`;
      const res = await api(key, 'POST', '/audit/webhooks', { url: receiver.url(path), event_filter: [] });
      expect(res.status, res.text).toBe(201);
      return { tenant, key, path };
    }),
  );
});
afterAll(async () => {
  await receiver.close();
  // Whatever the test killed is running again for the tests after it.
  await cluster('up');
});

describe('the engines fail over', () => {
  it('keeps accepting and serving while a broker, a ClickHouse replica, the ZooKeeper leader and a dispatcher die, and loses nothing', async () => {
    const flow = clusterTraffic(tenants, nativeCluster);
    await waitFor('traffic flowing', async () => flow.flowing(0));
    const victims: [name: string, carriesOn: (since: number) => boolean][] = [
      // Two brokers hold every partition's minimum in-sync replicas: producing and consuming go on.
      ['kafka-1', flow.flowing],
      // Reads fail over to the shard's other replica at once; the shard's quorum writes wait for its return.
      ['clickhouse-n1', flow.readsServed],
      // The ensemble elects another leader; replicated tables are read-only meanwhile, reads unaffected.
      [await roleHolder('zookeeper-', 'leader'), flow.flowing],
      // The other dispatcher takes its partitions.
      ['dispatcher-1', flow.flowing],
    ];
    // What each death cost, printed (never asserted: timings are the bench's).
    const report: string[] = [];
    for (const [name, carriesOn] of victims) {
      await cluster('kill', name);
      // Taken once the process is gone (kill waits for it): answers before it prove nothing of its absence.
      const killedAt = Date.now();
      await waitFor(`traffic served while ${name} is dead`, async () => carriesOn(killedAt));
      const servedAt = Date.now();
      await cluster('start', name);
      const backAt = Date.now();
      await waitFor(`traffic flowing after ${name} returned`, async () => flow.flowing(backAt));
      const in503 = (answers: Answer[]) => answers.filter((a) => a.at > killedAt && a.status === 503).length;
      report.push(
        `${name}: served ${((servedAt - killedAt) / 1000).toFixed(1)} s after the kill, flowing ` +
          `${((Date.now() - backAt) / 1000).toFixed(1)} s after its start; 503 answers since the kill: ` +
          `${in503(flow.ingests)} ingest, ${in503(flow.reads)} reads`,
      );
    }
    await flow.stop();

    // Clients saw nothing but answers and, while an engine's loss was felt, 503 with Retry-After.
    expect(flow.unexpected(flow.ingests, 202)).toEqual([]);
    expect(flow.unexpected(flow.reads, 200)).toEqual([]);

    for (const t of tenants)
      await expectTrailWhole(t, flow.accepted.get(t.tenant)!, receiver.at, nativeCluster);
    console.info(report.join('\n'));
  }, 600_000);
});
