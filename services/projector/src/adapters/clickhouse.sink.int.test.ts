import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropClickHouseDatabase, migrateClickHouse } from '@audit/shared/migrations';
import { sqlIdentifier } from '@audit/shared/platform';
import { BUCKET_MS, FILTER_DIMS, indexedValues, projectionTables } from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { uniqueNames } from '../../../../test/support/names.js';
import { clickhouseSettings, testClickHouse, testGuard } from '../../../../test/support/stack.js';
import { idKey } from '../domain/project-batch.js';
import { clickhouseSink } from './clickhouse.sink.js';

// On the cluster tier too (scripts/test-cluster.sh): there the projector writes with its quorum, and each node has
// its own views on its local events table, so a torn write is every node's view detached for the insert.
const names = uniqueNames('chsink');
const ch = testClickHouse(names);
const { cluster } = clickhouseSettings(names);
const LIVE = projectionTables(1);
let writer: ReturnType<ReturnType<typeof clickhouseSink>['on']>;

const rows = async <T>(query: string) => (await ch.query({ query, format: 'JSONEachRow' })).json<T>();

/** A view detached or attached again, on every node of the tier's cluster if there is one. */
const view = (verb: 'DETACH' | 'ATTACH', name: string) =>
  ch.command({
    query: `${verb} TABLE ${sqlIdentifier(names.database)}.${sqlIdentifier(name)}${
      cluster ? ` ON CLUSTER ${sqlIdentifier(cluster)}` : ''
    }`,
  });

beforeAll(async () => {
  await migrateClickHouse(clickhouseSettings(names));
  writer = clickhouseSink(ch, names.database, 'live', await testGuard(ch)).on(LIVE);
});
afterAll(async () => {
  await ch.close();
  await dropClickHouseDatabase(clickhouseSettings(names));
});

describe('clickhouseSink, an insert the server died in the middle of', () => {
  it('finds events the events table holds but the by-id table lacks only when asked to repair, and repairs them', async () => {
    const [torn, whole] = [
      sampleRecord({ tenant_id: names.tenant }),
      sampleRecord({ tenant_id: names.tenant }),
    ];
    await writer.insert([whole]);
    // The events table written, the view never run: what a server stopped between the two leaves.
    await view('DETACH', 'audit_event_ids_mv');
    await writer.insert([torn]);
    await view('ATTACH', 'audit_event_ids_mv');

    expect(await writer.storedKeys([torn, whole])).toEqual(new Set([idKey(whole)]));
    expect(await writer.storedKeys([torn, whole], true)).toEqual(new Set([idKey(torn), idKey(whole)]));
    // Repaired: the by-id table now has it, also for lookups without repair.
    expect(await writer.storedKeys([torn, whole])).toEqual(new Set([idKey(torn), idKey(whole)]));
  });

  it('makes the filter index and its summary whole: every row once, every count exact', async () => {
    const at = Date.UTC(2026, 0, 1, 10, 30);
    const torn = [0, 1, 2].map((i) =>
      sampleRecord({ tenant_id: names.tenant, timestamp: at + i, user_id: `u-${i % 2}`, resource_id: '' }),
    );
    const whole = sampleRecord({ tenant_id: names.tenant, timestamp: at + 3, user_id: 'u-0' });
    await writer.insert([whole]);
    // The events and by-id tables written, the filter index only for one event, the summary not at all.
    await view('DETACH', LIVE.bucketsView);
    await writer.insert([torn[0]!]);
    await view('DETACH', LIVE.indexView);
    await writer.insert(torn.slice(1));
    await view('ATTACH', LIVE.indexView);
    await view('ATTACH', LIVE.bucketsView);

    const all = [...torn, whole];
    expect(await writer.storedKeys(all, true)).toEqual(new Set(all.map(idKey)));
    await writer.storedKeys(all, true);

    const index = await rows<{ dim: number; value: string; event_id: string }>(
      `SELECT dim, value, event_id FROM ${LIVE.index} WHERE tenant_id = '${names.tenant}' AND ts >= ${at} AND ts < ${at + 10}`,
    );
    const expected = all.flatMap((e) =>
      indexedValues(e).map(([dim, value]) => ({ dim, value, event_id: e.event_id })),
    );
    const order = (a: { dim: number; value: string; event_id: string }) =>
      `${a.dim}/${a.value}/${a.event_id}`;
    expect(index.map(order).sort()).toEqual(expected.map(order).sort());

    const counts = await rows<{ dim: number; value: string; n: string }>(
      `SELECT dim, value, sum(n) AS n FROM ${LIVE.buckets} WHERE tenant_id = '${names.tenant}'
       AND bucket = ${Math.floor(at / BUCKET_MS)} GROUP BY dim, value HAVING n != 0`,
    );
    const users = Object.fromEntries(
      counts.filter((c) => c.dim === FILTER_DIMS.user_id).map((c) => [c.value, Number(c.n)]),
    );
    expect(users).toEqual({ 'u-0': 3, 'u-1': 1 });
    expect(counts.find((c) => c.dim === 0)?.n).toBe('4');
    expect(counts.find((c) => c.dim === FILTER_DIMS.resource_id)?.n).toBe('1');
  });
});

describe('clickhouseSink, a batch spanning many partitions', () => {
  it('stores a history of 150 monthly partitions in one write (current ClickHouse refuses over 100 per insert)', async () => {
    const tenant = `${names.tenant}-history`;
    const month = 30 * 24 * 3_600_000;
    const start = Date.UTC(2010, 0, 1);
    const history = Array.from({ length: 300 }, (_, i) =>
      sampleRecord({ tenant_id: tenant, timestamp: start + Math.floor(i / 2) * month + i }),
    );
    await writer.insert(history);
    const [stored] = await rows<{ n: string; partitions: string }>(
      `SELECT count() AS n, uniqExact(_partition_id) AS partitions FROM audit_events WHERE tenant_id = '${tenant}'`,
    );
    expect(stored).toEqual({ n: '300', partitions: '150' });
    expect(await writer.storedKeys(history)).toEqual(new Set(history.map(idKey)));
  });
});
