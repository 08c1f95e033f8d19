import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_PATIENT_FIELDS } from '@audit/shared/contract';
import { migrateClickHouse } from '@audit/shared/migrations';
import {
  createClickHouse,
  distributed,
  localTable,
  onEveryNode,
  sqlValue,
  type ClickHouseClient,
} from '@audit/shared/platform';
import {
  ADDED_EVENT_COLUMNS,
  FILTER_DIMS,
  filterIndexState,
  projectionTables,
} from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { clickhouseSink } from '../../services/projector/src/adapters/clickhouse.sink.js';
import { uniqueNames } from '../support/names.js';
import { v1Row } from '../support/previous-event-columns.js';
import { cleanUp, clickhouseSettings, testClickHouse, testGuard, testSchema } from '../support/stack.js';

// Each server of the cluster: the upgrade must reach all four, and each must read the same through its
// Distributed table.
const NODE_URLS = (process.env.CLICKHOUSE_NODE_URLS ?? '').split(',').filter(Boolean);
const CLUSTER = process.env.CLICKHOUSE_CLUSTER ?? '';

const names = uniqueNames('chupgrade');
const ch = testClickHouse(names);
const settings = clickhouseSettings(names);
const live = projectionTables(1);
const topology = { cluster: CLUSTER, database: names.database };
const added = ADDED_EVENT_COLUMNS.map((c) => c.name);
let nodes: ClickHouseClient[] = [];

const rows = async <T>(client: ClickHouseClient, query: string) =>
  (await client.query({ query, format: 'JSONEachRow' })).json<T>();
/** Which of the columns the event's later versions added `table` has, as the node the client reaches sees it. */
const addedColumnsOf = async (client: ClickHouseClient, table: string) =>
  (
    await rows<{ name: string }>(
      client,
      `SELECT name FROM system.columns WHERE database = currentDatabase() AND table = ${sqlValue(table)}
       AND name IN (${added.map(sqlValue).join(', ')}) ORDER BY name`,
    )
  ).map((c) => c.name);
const onCluster = (query: string) => onEveryNode(ch, query);

/**
 * The cluster as the previous version left it: the events' local tables and their Distributed tables without
 * the columns of the event's later versions, and no filter index of the current shape (its views read those columns).
 */
async function previousVersion() {
  await migrateClickHouse(settings);
  const schema = testSchema(names, ch);
  for (const name of [live.indexView, live.bucketsView, live.index, live.buckets]) {
    await schema.run(`DROP TABLE IF EXISTS ${name}`);
  }
  await onCluster(
    `ALTER TABLE ${names.database}.${localTable(live.events)} ON CLUSTER ${CLUSTER}
     ${added.map((c) => `DROP COLUMN ${c}`).join(', ')}`,
  );
  await onCluster(`DROP TABLE ${names.database}.${live.events} ON CLUSTER ${CLUSTER}`);
  await onCluster(distributed(topology, live.events));
  // The shape's readiness is a replicated table: emptied on one replica, emptied on all.
  await ch.command({ query: 'TRUNCATE TABLE filter_index_shape_ready' });
}

const older = Array.from({ length: 12 }, (_, i) =>
  sampleRecord({ tenant_id: `${names.tenant}-${i % 4}`, timestamp: Date.UTC(2025, i, 1) }),
);

beforeAll(async () => {
  expect(NODE_URLS.length).toBe(4);
  nodes = NODE_URLS.map((url) => createClickHouse({ ...settings, url }));
  await previousVersion();
  expect(await addedColumnsOf(ch, live.events)).toEqual([]);
  await ch.insert({
    table: live.events,
    format: 'JSONEachRow',
    // Written by both replicas of each shard before the insert returns, as the projector writes: every node's
    // Distributed table then reads them all, whichever replica it asks.
    clickhouse_settings: { insert_distributed_sync: 1, ...(await testGuard(ch)).insertSettings },
    values: older.map(v1Row),
  });
});
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.close()));
  await ch.close();
  await cleanUp(names);
});

describe("upgrading a cluster that holds events of the event's version 1 to its later versions", () => {
  it('adds the columns on every node, keeps every event, and indexes what is written after', async () => {
    await migrateClickHouse(settings);

    for (const node of nodes) {
      for (const table of [localTable(live.events), live.events]) {
        expect(await addedColumnsOf(node, table), table).toEqual([...added].sort());
      }
      // The events stored before read through each node's Distributed table with the fields empty.
      const stored = await rows<Record<string, unknown>>(
        node,
        `SELECT event_id, ${added.join(', ')} FROM ${live.events} ORDER BY event_id`,
      );
      expect(stored).toEqual(
        older
          .map((e) => ({ event_id: e.event_id, ...NO_PATIENT_FIELDS, disclosure: 0, leaf_salts: '' }))
          .sort((a, b) => a.event_id.localeCompare(b.event_id)),
      );
    }
    // The events were there before the new shape's views: reads go without it until a replay rebuilds it.
    expect(await filterIndexState(ch).ready(1)).toBe(false);

    const newer = sampleRecord({ tenant_id: `${names.tenant}-0`, patient_id: 'p-2051', disclosure: false });
    await clickhouseSink(ch, names.database, 'live', await testGuard(ch))
      .on(live)
      .insert([newer]);
    for (const node of nodes) {
      const [event] = await rows<{ patient_id: string }>(
        node,
        `SELECT patient_id FROM ${live.events} WHERE event_id = ${sqlValue(newer.event_id)}`,
      );
      expect(event).toEqual({ patient_id: 'p-2051' });
      const [indexed] = await rows<{ n: string }>(
        node,
        `SELECT count() AS n FROM ${live.index} WHERE tenant_id = ${sqlValue(newer.tenant_id)} AND dim = ${FILTER_DIMS.patient_id}
         AND value = 'p-2051'`,
      );
      expect(indexed).toEqual({ n: '1' });
    }
  });
});
