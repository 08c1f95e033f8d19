import { expect } from 'vitest';
import {
  bucketRowsQuery,
  indexRowsQuery,
  projectionTables,
  sqlIdentifier,
  sqlValue,
  type ClickHouseClient,
} from '@audit/shared';

const texts = async (ch: ClickHouseClient, query: string) =>
  (await (await ch.query({ query, format: 'JSONEachRow' })).json<{ t: string }>()).map((r) => r.t).sort();

/**
 * The tenant's filter index holds exactly one row per event and dimension of its events table (no duplicate,
 * nothing missing), and every summary count is exactly the number of its events there.
 */
export async function expectFilterIndexExact(ch: ClickHouseClient, tenant: string, generation = 1) {
  const t = projectionTables(generation);
  const ofTenant = `tenant_id = ${sqlValue(tenant)}`;
  const row = `concat(toString(dim), '/', value, '/', event_id)`;
  const [index, derived] = await Promise.all([
    texts(ch, `SELECT ${row} AS t FROM ${sqlIdentifier(t.index)} WHERE ${ofTenant}`),
    texts(ch, `SELECT ${row} AS t FROM (${indexRowsQuery(t.events, ofTenant)})`),
  ]);
  expect(index.length, 'filter index rows').toBe(derived.length);
  expect(index, 'filter index rows').toEqual(derived);
  const count = `concat(toString(dim), '/', value, '/', toString(bucket), '=', toString(sum(n)))`;
  const [summary, counted] = await Promise.all([
    texts(
      ch,
      `SELECT ${count} AS t FROM ${sqlIdentifier(t.buckets)} WHERE ${ofTenant}
       GROUP BY dim, value, bucket HAVING sum(n) != 0`,
    ),
    texts(
      ch,
      `SELECT ${count} AS t FROM (${bucketRowsQuery(t.events, ofTenant)}) GROUP BY dim, value, bucket`,
    ),
  ]);
  expect(summary, 'summary counts').toEqual(counted);
}

/**
 * The tenant's events the filter index holds (every event has an action, dimension 1). Its view writes after
 * the events table's part is in, so an event can be visible in the events table a moment before filtered
 * reads can see it: a test waiting for an event to be queryable waits for both.
 */
export async function indexedEventIds(
  ch: ClickHouseClient,
  tenant: string,
  generation = 1,
): Promise<Set<string>> {
  const t = projectionTables(generation);
  const result = await ch.query({
    query: `SELECT event_id FROM ${sqlIdentifier(t.index)} WHERE tenant_id = ${sqlValue(tenant)} AND dim = 1`,
    format: 'JSONEachRow',
  });
  return new Set((await result.json<{ event_id: string }>()).map((r) => r.event_id));
}
