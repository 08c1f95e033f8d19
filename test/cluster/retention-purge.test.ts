import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEventRecord } from '@audit/shared/contract';
import { migrateClickHouse } from '@audit/shared/migrations';
import { localTable, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import { EVENTS_PARTITION_MS, INDEX_PARTITION_MS, projectionTables } from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { clickhouseSink } from '../../services/projector/src/adapters/clickhouse.sink.js';
import { clusterNodes, NODE_URLS, type ClusterNode } from '../support/cluster-nodes.js';
import { expectFilterIndexExact } from '../support/filter-index.js';
import { uniqueNames } from '../support/names.js';
import { opsCli } from '../support/ops-cli.js';
import { migratedPostgres } from '../support/postgres.js';
import {
  cleanUp,
  clickhouseSettings,
  custodianService,
  testClickHouse,
  testGuard,
} from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

// A purge on 2 shards of 2 replicas (docs/retention.md "On a cluster"): the operator's command and the custodian,
// which delete on one replica of each shard through CLICKHOUSE_NODE_URLS and wait for every replica.
const names = uniqueNames('chpurge');
const ch = testClickHouse(names);
let postgres: Awaited<ReturnType<typeof migratedPostgres>>;
const ops = opsCli(names, () => postgres.url);
let custodian: ReturnType<typeof custodianService> | undefined;
let nodes: ClusterNode[] = [];
const LIVE = projectionTables(1);
const DAY = 86_400_000;
const NOW = Date.now();
const MAX_DAYS = 400;

const rows = async <T>(client: ClickHouseClient, query: string) =>
  (await client.query({ query, format: 'JSONEachRow' })).json<T>();

beforeAll(async () => {
  expect(NODE_URLS.length).toBe(4);
  await migrateClickHouse(clickhouseSettings(names));
  postgres = await migratedPostgres(names);
  nodes = await clusterNodes(names);
});
afterAll(async () => {
  await custodian?.stop();
  await Promise.all(nodes.map((n) => n.client.close()));
  await ch.close();
  await cleanUp(names);
  await postgres?.drop();
});

/** Old events (a quarter by a held user) and recent ones of the tenant. */
function history(tenant: string): AuditEventRecord[] {
  return [
    ...Array.from({ length: 40 }, (_, i) =>
      sampleRecord({
        tenant_id: tenant,
        timestamp: NOW - 1000 * DAY + i,
        ...(i % 4 === 0 && { user_id: 'u-held' }),
      }),
    ),
    ...Array.from({ length: 10 }, (_, i) =>
      sampleRecord({ tenant_id: tenant, timestamp: NOW - 10 * DAY + i }),
    ),
  ];
}

/** The tenant's event ids in each node's own local tables: the events table and the filter index's action rows. */
async function perReplica(tenant: string) {
  return Promise.all(
    nodes.map(async (node) => {
      const ids = async (table: string, where = '1') =>
        (
          await rows<{ event_id: string }>(
            node.client,
            `SELECT event_id FROM ${table} WHERE tenant_id = ${sqlValue(tenant)} AND ${where} ORDER BY event_id`,
          )
        ).map((r) => r.event_id);
      return {
        shard: node.shard,
        events: await ids(localTable(LIVE.events)),
        index: await ids(localTable(LIVE.index), 'dim = 1'),
      };
    }),
  );
}

describe('a retention purge on a cluster', () => {
  it('removes the events past the maximum that no hold covers from every replica of the shard', async () => {
    const [tenant, other] = [`${names.tenant}-a`, `${names.tenant}-b`];
    const sent = { tenant: history(tenant), other: history(other) };
    const sink = clickhouseSink(ch, names.database, 'live', await testGuard(ch)).on(LIVE);
    await sink.insert([...sent.tenant, ...sent.other]);
    const ok = async (...argv: string[]) => {
      const res = await ops([...argv, '--json']);
      expect(res.code, res.err).toBe(0);
      return res.json();
    };
    await ok('retention', 'set', '--tenant', tenant, '--min-days', '30', '--max-days', String(MAX_DAYS));
    await ok('holds', 'create', '--tenant', tenant, '--reason', 'matter 9', '--user-id', 'u-held');

    // Without every node's address it refuses, and removes nothing.
    const refused = await ops(['retention', 'purge', '--tenant', tenant], {
      CLICKHOUSE_NODE_URLS: undefined,
    });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/CLICKHOUSE_NODE_URLS/);

    const kept = sent.tenant.filter((e) => e.user_id === 'u-held' || e.timestamp > NOW - MAX_DAYS * DAY);
    expect(await ok('retention', 'purge', '--tenant', tenant)).toMatchObject({
      purged: sent.tenant.length - kept.length,
      kept: 10,
    });
    await expectPurged(tenant, kept);
    // The other tenant is as it was, wherever its shard.
    const untouched = (await perReplica(other)).filter((r) => r.events.length > 0);
    expect(untouched).toHaveLength(2);
    for (const replica of untouched) expect(replica.events).toHaveLength(sent.other.length);
    await expectFilterIndexExact(ch, other);
    await expectOneMarkerPerPartition();
  });

  it('runs on a schedule: the custodian purges a due tenant there too', async () => {
    const tenant = `${names.tenant}-c`;
    const sent = history(tenant);
    const sink = clickhouseSink(ch, names.database, 'live', await testGuard(ch)).on(LIVE);
    await sink.insert(sent);
    const set = await ops([
      'retention',
      'set',
      '--tenant',
      tenant,
      '--min-days',
      '30',
      '--max-days',
      String(MAX_DAYS),
    ]);
    expect(set.code, set.err).toBe(0);
    custodian = custodianService(names, postgres.url, { RETENTION_PURGE_CHECK_MS: '500' });
    await custodian.start();
    const run = await waitFor('the custodian purged the tenant', async () => {
      const status = await ops(['retention', 'status', '--tenant', tenant, '--json']);
      const runs = (status.json() as { runs: { status: string; started_by: string }[] }).runs;
      return runs.find((r) => r.status !== 'running');
    });
    expect(run).toMatchObject({ status: 'succeeded', started_by: 'custodian' });
    await expectPurged(
      tenant,
      sent.filter((e) => e.timestamp > NOW - MAX_DAYS * DAY),
    );
    // The rows that let 18.16 mutate a partition's last quorum part: the earlier purge's are gone with this one's.
    await expectOneMarkerPerPartition();
  });
});

/** Each replica of the tenant's shard holds exactly the events kept, read without waiting: the purge waited. */
async function expectPurged(tenant: string, kept: AuditEventRecord[]) {
  const expected = kept.map((e) => e.event_id).sort();
  const replicas = (await perReplica(tenant)).filter((r) => r.events.length > 0);
  expect(replicas.map((r) => r.shard)).toEqual([replicas[0]!.shard, replicas[0]!.shard]);
  for (const replica of replicas) expect(replica).toMatchObject({ events: expected, index: expected });
  await expectFilterIndexExact(ch, tenant);
}

/**
 * The reserved tenant's rows on every replica: one per partition of the events table and of the filter index,
 * all the last deletion's of the table (docs/retention.md "On a cluster").
 */
async function expectOneMarkerPerPartition() {
  for (const node of nodes) {
    for (const [table, span] of [
      [LIVE.events, EVENTS_PARTITION_MS],
      [LIVE.index, INDEX_PARTITION_MS],
    ] as const) {
      const local = localTable(table);
      const [markers] = await rows<{ n: string; partitions: string; deletions: string }>(
        node.client,
        `SELECT count() AS n, uniqExact(intDiv(ts, ${span})) AS partitions, uniqExact(details) AS deletions
           FROM ${local} WHERE tenant_id = ''`,
      );
      const [parts] = await rows<{ partitions: string }>(
        node.client,
        `SELECT uniqExact(partition) AS partitions FROM system.parts
          WHERE database = currentDatabase() AND table = ${sqlValue(local)} AND active`,
      );
      expect({ ...markers, node: node.shard, table }).toEqual({
        n: parts!.partitions,
        partitions: parts!.partitions,
        deletions: parts!.partitions === '0' ? '0' : '1',
        node: node.shard,
        table,
      });
    }
  }
}
