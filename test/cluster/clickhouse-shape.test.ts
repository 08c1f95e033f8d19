import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateClickHouse } from '@audit/shared/migrations';
import { localTable, type ClickHouseClient } from '@audit/shared/platform';
import { pendingQuorums, projectionTables } from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { clickhouseSink } from '../../services/projector/src/adapters/clickhouse.sink.js';
import { clusterNodes, NODE_URLS, type ClusterNode } from '../support/cluster-nodes.js';
import { uniqueNames } from '../support/names.js';
import { cleanUp, clickhouseSettings, testClickHouse, testGuard } from '../support/stack.js';

const names = uniqueNames('chshape');
const ch = testClickHouse(names);
let nodes: ClusterNode[] = [];

const rows = async <T>(client: ClickHouseClient, query: string) =>
  (await client.query({ query, format: 'JSONEachRow' })).json<T>();

beforeAll(async () => {
  expect(NODE_URLS.length).toBe(4);
  await migrateClickHouse(clickhouseSettings(names));
  nodes = await clusterNodes(names);
});
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.client.close()));
  await ch.close();
  await cleanUp(names);
});

describe('ClickHouse as 2 shards of 2 replicas', () => {
  it('has the schema on every node: a tenant’s tables sharded over replicated local tables, the rest replicated whole', async () => {
    for (const node of nodes) {
      const tables = await rows<{ name: string; engine: string }>(
        node.client,
        `SELECT name, engine FROM system.tables WHERE database = currentDatabase() ORDER BY name`,
      );
      const engines = Object.fromEntries(tables.map((t) => [t.name, t.engine]));
      expect(engines).toEqual({
        audit_events: 'Distributed',
        audit_events_local: 'ReplicatedReplacingMergeTree',
        audit_event_ids: 'Distributed',
        audit_event_ids_local: 'ReplicatedReplacingMergeTree',
        audit_event_ids_mv: 'MaterializedView',
        audit_events_by_s3: 'Distributed',
        audit_events_by_s3_local: 'ReplicatedReplacingMergeTree',
        audit_events_by_mv_s3: 'MaterializedView',
        audit_event_buckets_s3: 'Distributed',
        audit_event_buckets_s3_local: 'ReplicatedSummingMergeTree',
        audit_event_buckets_mv_s3: 'MaterializedView',
        filter_index_backfill: 'ReplicatedMergeTree',
        filter_index_ready: 'ReplicatedMergeTree',
        filter_index_shape_backfill: 'ReplicatedMergeTree',
        filter_index_shape_ready: 'ReplicatedMergeTree',
        projection_acks: 'ReplicatedMergeTree',
        projection_state: 'ReplicatedMergeTree',
        schema_migrations: 'ReplicatedMergeTree',
      });
    }
    expect(new Set(nodes.map((n) => n.shard))).toEqual(new Set(['01', '02']));
  });

  it('stores each tenant on one shard, on both of its replicas by the time the write is acknowledged', async () => {
    const tenants = Array.from({ length: 24 }, (_, i) => `${names.tenant}-${i}`);
    const events = tenants.flatMap((tenant_id, i) =>
      Array.from({ length: i + 1 }, () => sampleRecord({ tenant_id })),
    );
    const sink = clickhouseSink(ch, names.database, 'live', await testGuard(ch)).on(projectionTables(1));
    await sink.insert(events);

    // Read from each node's own local tables at once, no waiting: the quorum insert is on both replicas already,
    // and the views have filled the by-id table and the filter index there too.
    const perNode = await Promise.all(
      nodes.map(async (node) => {
        const counts = async (table: string) =>
          Object.fromEntries(
            (
              await rows<{ tenant_id: string; n: string }>(
                node.client,
                `SELECT tenant_id, count() AS n FROM ${table} GROUP BY tenant_id ORDER BY tenant_id`,
              )
            ).map((r) => [r.tenant_id, Number(r.n)]),
          );
        return {
          shard: node.shard,
          events: await counts('audit_events_local'),
          ids: await counts('audit_event_ids_local'),
          actions: await counts(`${localTable(projectionTables(1).index)} WHERE dim = 1`),
        };
      }),
    );
    for (const shard of ['01', '02']) {
      const [a, b] = perNode.filter((n) => n.shard === shard);
      expect(b).toEqual(a);
      expect(a!.ids).toEqual(a!.events);
      expect(a!.actions).toEqual(a!.events);
    }
    const [one, two] = ['01', '02'].map((shard) => perNode.find((n) => n.shard === shard)!.events);
    expect(Object.keys(one!).length).toBeGreaterThan(0);
    expect(Object.keys(two!).length).toBeGreaterThan(0);
    expect(Object.keys(one!).filter((t) => t in two!)).toEqual([]);
    expect({ ...one, ...two }).toEqual(Object.fromEntries(tenants.map((t, i) => [t, i + 1])));

    // Through the Distributed table, from every node: each event once.
    for (const node of nodes) {
      const [all] = await rows<{ n: string; ids: string }>(
        node.client,
        'SELECT count() AS n, uniqExact(event_id) AS ids FROM audit_events',
      );
      expect(all).toEqual({ n: String(events.length), ids: String(events.length) });
    }
  });

  it('waits out an insert whose quorum failed for its client, whose rows appear once the other replica has them', async () => {
    const guard = await testGuard(ch);
    const tables = projectionTables(1);
    const locals = [tables.events, tables.ids, tables.index, tables.buckets].map((t) => `${t}_local`);
    const fetches = (verb: 'STOP' | 'START') =>
      Promise.all(
        nodes.flatMap((n) => locals.map((t) => n.client.command({ query: `SYSTEM ${verb} FETCHES ${t}` }))),
      );
    const events = Array.from({ length: 20 }, () => sampleRecord({ tenant_id: `${names.tenant}-quorum` }));
    // No replica fetches: the insert's parts stay on the replica that wrote them, and its quorum of 2 times out.
    const impatient = { ...guard, insertSettings: { ...guard.insertSettings, insert_quorum_timeout: 2000 } };
    const sink = clickhouseSink(ch, names.database, 'live', impatient);
    await fetches('STOP');
    try {
      await expect(sink.on(tables).insert(events)).rejects.toThrow(/quorum/i);
      expect(await pendingQuorums(ch, names.database, guard)).toBeGreaterThan(0);
      // Hidden from the check for stored events a retry makes, which would store them again now.
      expect((await sink.on(tables).storedKeys(events, true)).size).toBe(0);
    } finally {
      await fetches('START');
    }
    await sink.insertsSettled();
    expect(await pendingQuorums(ch, names.database, guard)).toBe(0);
    // The insert failed before its views ran: the retry's check finds the events table's rows and fills the rest.
    expect((await sink.on(tables).storedKeys(events, true)).size).toBe(events.length);
    expect((await sink.on(tables).storedKeys(events)).size).toBe(events.length);
  });
});
