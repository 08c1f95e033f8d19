import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectTrailWhole, type WatchedTenant } from '../support/cluster-oracle.js';
import { clusterTraffic } from '../support/cluster-traffic.js';
import { testComposeProject } from '../support/compose.js';
import { apiAt, type Deployment } from '../support/deployment.js';
import { waitFor } from '../support/wait-for.js';
import { webhookReceiver } from '../support/webhook-receiver.js';

// docker-compose.cluster.yml brought up whole on this machine (Podman, images built here) and used through
// HAProxy's published ports, as a Docker user would run the cluster shape: the shape is checked from inside its
// engines, then containers crash under traffic and their restart policy brings them back, and the cluster tier's
// oracle checks the trail. The dispatchers reach this process's receiver through Podman's bridge, a private
// address, which the test's WEBHOOK_ALLOW_TARGET_CIDRS lets through.

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const compose = await testComposeProject('cluster');
const receiver = await webhookReceiver(() => 204, { listen: '0.0.0.0', urlHost: 'host.containers.internal' });

const deployment: Deployment = {
  ingest: compose.ingest,
  ingestToken: compose.ingestToken,
  api: apiAt(compose.gateway),
  ops: async (argv) => {
    try {
      return { code: 0, out: await compose.ops(...argv) };
    } catch (err) {
      const failed = err as { code?: number; stdout?: string };
      return { code: failed.code ?? 1, out: failed.stdout ?? '' };
    }
  },
};

const CLICKHOUSE_NODES = ['clickhouse-n1', 'clickhouse-n2', 'clickhouse-n3', 'clickhouse-n4'];

/** A query on one ClickHouse node, from inside its container (the nodes are not published), as TSV lines. */
async function onNode(node: string, query: string): Promise<string[]> {
  const url = 'http://localhost:8123/?user=audit&password=audit&database=audit';
  const out = await compose.compose('exec', '-T', node, 'wget', '-qO-', '--post-data', query, url);
  return out.split('\n').filter((line) => line !== '');
}

/** The Kafka facts of the audit topic, asked by kafkajs from a one-off container of the service image. */
async function auditTopic() {
  const script = `
    import kafkajs from 'kafkajs';
    const admin = new kafkajs.Kafka({ brokers: process.env.KAFKA_BROKERS.split(','), logLevel: 0 }).admin();
    await admin.connect();
    const { brokers } = await admin.describeCluster();
    const { topics } = await admin.fetchTopicMetadata({ topics: ['audit.events.v1'] });
    const { resources } = await admin.describeConfigs({
      resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: 'audit.events.v1', configNames: ['min.insync.replicas'] }],
    });
    await admin.disconnect();
    console.log(JSON.stringify({
      brokers: brokers.length,
      replicas: topics[0].partitions.map((p) => p.replicas.length),
      minInsync: resources[0].configEntries[0].configValue,
    }));`;
  const out = await compose.compose('run', '--rm', 'migrate', 'node', '--input-type=module', '-e', script);
  return JSON.parse(out.trim().split('\n').at(-1)!) as {
    brokers: number;
    replicas: number[];
    minInsync: string;
  };
}

async function mintKey(tenant: string): Promise<string> {
  const out = await compose.ops(
    'keys',
    'create',
    '--tenant',
    tenant,
    '--scopes',
    'audit:read,webhooks:write',
    '--json',
  );
  return (JSON.parse(out) as { key: string }).key;
}

beforeAll(async () => {
  await compose.up();
});

afterAll(async () => {
  await receiver.close();
  await compose.down();
});

describe('docker-compose.cluster.yml under Podman, with the images built here', () => {
  it('has the cluster shape: ClickHouse sharded and replicated, Kafka replicated three times, a streaming standby', async () => {
    const shards = await Promise.all(
      CLICKHOUSE_NODES.map(async (node) => {
        const macros = await onNode(node, 'SELECT macro, substitution FROM system.macros ORDER BY macro');
        const engines = await onNode(
          node,
          "SELECT name, engine FROM system.tables WHERE database = 'audit' AND name IN ('audit_events', 'audit_events_local') ORDER BY name",
        );
        expect(engines).toEqual([
          'audit_events\tDistributed',
          'audit_events_local\tReplicatedReplacingMergeTree',
        ]);
        return macros;
      }),
    );
    expect(shards).toEqual([
      ['replica\tclickhouse-n1', 'shard\t01'],
      ['replica\tclickhouse-n2', 'shard\t01'],
      ['replica\tclickhouse-n3', 'shard\t02'],
      ['replica\tclickhouse-n4', 'shard\t02'],
    ]);

    expect(await auditTopic()).toEqual({ brokers: 3, replicas: [3, 3, 3, 3, 3, 3], minInsync: '2' });

    const streaming = await compose.compose(
      'exec',
      '-T',
      'postgres-1',
      'psql',
      '-U',
      'audit',
      '-d',
      'audit',
      '-Atc',
      `SELECT r.state FROM pg_replication_slots s JOIN pg_stat_replication r ON r.pid = s.active_pid
       WHERE s.slot_name = 'cluster_standby'`,
    );
    expect(streaming.trim()).toBe('streaming');
  });

  it('serves through HAProxy while a gateway, an ingest, a projector and a broker crash and restart, and loses nothing', async () => {
    // One tenant on each shard (the Distributed tables shard by cityHash64(tenant_id); shard 0 is n1 and n2).
    const shardOf = async (tenant: string) =>
      Number((await onNode('clickhouse-n1', `SELECT cityHash64('${tenant}') % 2`))[0]);
    const byShard = new Map<number, string>();
    while (byShard.size < 2) {
      const tenant = `tenant-cluster-${hex(4)}`;
      byShard.set(await shardOf(tenant), tenant);
    }
    const tenants: (WatchedTenant & { shard: number })[] = await Promise.all(
      [...byShard].map(async ([shard, tenant]) => ({
        tenant,
        shard,
        key: await mintKey(tenant),
        path: `/siem-${shard}`,
      })),
    );
    for (const t of tenants) {
      const hook = await deployment.api(t.key, 'POST', '/audit/webhooks', {
        url: receiver.url(t.path),
        event_filter: [],
      });
      expect(hook.status, hook.text).toBe(201);
    }

    const flow = clusterTraffic(tenants, deployment);
    const started = Date.now();
    await waitFor('traffic flowing', async () => flow.flowing(started));

    // The balancer hides a stateless process's crash; the restarted projector takes its partitions back.
    const servicesCrash = Date.now();
    await Promise.all(['gateway-1', 'ingest-1', 'projector-1'].map((s) => compose.crash(s)));
    const afterServices = Date.now();
    await waitFor('traffic flowing after the services came back', async () => flow.flowing(afterServices));

    // Ingest may answer 503 with Retry-After while a partition's leadership moves to another broker.
    const brokerCrash = Date.now();
    await compose.crash('kafka-2');
    const afterBroker = Date.now();
    await waitFor('traffic flowing after the broker came back', async () => flow.flowing(afterBroker));
    await flow.stop();

    const during = (from: number, to: number) => flow.ingests.filter((a) => a.at >= from && a.at < to);
    expect(during(servicesCrash, brokerCrash).filter((a) => a.status !== 202)).toEqual([]);
    expect(flow.unexpected(during(brokerCrash, Infinity), 202)).toEqual([]);
    expect(flow.reads.filter((a) => a.status !== 200)).toEqual([]);

    for (const t of tenants) {
      const accepted = flow.accepted.get(t.tenant)!;
      await expectTrailWhole(t, accepted, (path) => receiver.at(path), deployment);
      // Sharded by tenant: both replicas of its shard hold every accepted event, the other shard none.
      const held = await waitFor(`${t.tenant}: both replicas of its shard hold its events`, async () => {
        const perNode = await Promise.all(
          CLICKHOUSE_NODES.map(async (node) => {
            const ids = new Set(
              await onNode(
                node,
                `SELECT DISTINCT event_id FROM audit_events_local WHERE tenant_id = '${t.tenant}'`,
              ),
            );
            return [...accepted].filter((id) => ids.has(id)).length;
          }),
        );
        const full = accepted.size;
        return perNode.every((n, i) => n === (Math.floor(i / 2) === t.shard ? full : n)) && perNode;
      });
      expect(held).toEqual(
        t.shard === 0 ? [accepted.size, accepted.size, 0, 0] : [0, 0, accepted.size, accepted.size],
      );
    }

    await compose.down();
    expect(await compose.leftovers()).toEqual([]);
  });
});
