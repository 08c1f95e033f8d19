import { expect } from 'vitest';
import { sqlIdentifier, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import {
  bucketRowsQuery,
  FILTER_DIMS,
  indexRowsQuery,
  projectionTables,
  runningInserts,
  type ProjectionTables,
} from '@audit/shared/projection';
import type { ClickHouseSettings } from '@clickhouse/client';
import { testGuard } from './stack.js';
import { waitFor } from './wait-for.js';

const rows = async <T>(ch: ClickHouseClient, query: string) =>
  (await ch.query({ query, format: 'JSONEachRow' })).json<T>();

const texts = async (ch: ClickHouseClient, query: string) =>
  (await rows<{ t: string }>(ch, query)).map((r) => r.t).sort();

// One filter index row, as the index holds it and as the events table derives it.
const ROW = `concat(toString(dim), '/', value, '/', event_id)`;

/**
 * Waits until no insert of the projection runs in the client's database. An insert's events are visible as soon
 * as the events table has them; its views write the filter index and the summary after that, for as long as they
 * take: a catch-up insert of tens of thousands of events, after an outage, takes seconds.
 */
async function projectionInsertsEnded(ch: ClickHouseClient) {
  const [row] = await rows<{ db: string }>(ch, 'SELECT currentDatabase() AS db');
  const guard = await testGuard(ch);
  const running = (writer: 'live' | 'replay') => runningInserts(ch, row!.db, writer, guard);
  await waitFor(
    'the projection inserts ended',
    async () => (await running('live')) + (await running('replay')) === 0,
  );
}

type EventGroup = {
  lacking: number;
  events: string;
  first: string;
  last: string;
  first_block: string;
  last_block: string;
  without_ids: string;
};

/**
 * What the index lacks, to tell the causes apart: a view not firing for a while (events lacking rows ingested over
 * a window, from many inserts), an insert cut short whose repair did not run (one insert's events, with or without
 * by-id rows by where it stopped: the views run in the order of their names, summary, by-id, index), or another.
 * Blocks number the events table's inserts (its parts are named partition_minblock_maxblock_level).
 */
async function indexGaps(ch: ClickHouseClient, t: ProjectionTables, tenant: string): Promise<string> {
  const ofTenant = `tenant_id = ${sqlValue(tenant)}`;
  const missing = `SELECT dim, event_id FROM (${indexRowsQuery(t.events, ofTenant)})
    WHERE ${ROW} NOT IN (SELECT ${ROW} FROM ${sqlIdentifier(t.index)} WHERE ${ofTenant})`;
  const [byDim, groups] = await Promise.all([
    rows<{ dim: number; n: string }>(
      ch,
      `SELECT dim, count() AS n FROM (${missing}) GROUP BY dim ORDER BY dim`,
    ),
    rows<EventGroup>(
      ch,
      `SELECT event_id IN (SELECT event_id FROM (${missing})) AS lacking, count() AS events,
         min(ingested_at) AS first, max(ingested_at) AS last,
         min(toUInt64(splitByChar('_', _part)[2])) AS first_block,
         max(toUInt64(splitByChar('_', _part)[3])) AS last_block,
         countIf(event_id NOT IN (SELECT event_id FROM ${sqlIdentifier(t.ids)} WHERE ${ofTenant})) AS without_ids
       FROM ${sqlIdentifier(t.events)} WHERE ${ofTenant} GROUP BY lacking ORDER BY lacking DESC`,
    ),
  ]);
  const names = Object.fromEntries(Object.entries(FILTER_DIMS).map(([name, dim]) => [dim, name]));
  const at = (ms: string) => new Date(Number(ms)).toISOString();
  const group = (g: EventGroup) =>
    `${g.lacking ? 'lacking rows' : 'with every row'}: ${g.events} events ingested ${at(g.first)} to ${at(g.last)}, ` +
    `inserted in blocks ${g.first_block}-${g.last_block}, ${g.without_ids} without by-id rows`;
  const lacking = groups.find((g) => g.lacking)?.events ?? 0;
  const total = groups.reduce((sum, g) => sum + Number(g.events), 0);
  return [
    `filter index of ${tenant} (generation ${t.generation}): ${lacking} of ${total} events lack index rows`,
    `missing rows by dimension: ${byDim.map((d) => `${names[d.dim]} ${d.n}`).join(', ') || 'none'}`,
    ...groups.map(group),
  ].join('; ');
}

/**
 * The tenant's filter index holds exactly one row per event and dimension of its events table (no duplicate,
 * nothing missing), and every summary count is exactly the number of its events there: once the tenant's events
 * are all stored, and the projection's inserts have ended. On a mismatch the message says what the index lacks.
 */
export async function expectFilterIndexExact(ch: ClickHouseClient, tenant: string, generation = 1) {
  const t = projectionTables(generation);
  const ofTenant = `tenant_id = ${sqlValue(tenant)}`;
  await projectionInsertsEnded(ch);
  const [index, derived] = await Promise.all([
    texts(ch, `SELECT ${ROW} AS t FROM ${sqlIdentifier(t.index)} WHERE ${ofTenant}`),
    texts(ch, `SELECT ${ROW} AS t FROM (${indexRowsQuery(t.events, ofTenant)})`),
  ]);
  const exact = index.length === derived.length && index.every((row, i) => row === derived[i]);
  // The diagnosis must not hide the mismatch: one it cannot make says why instead.
  const message = exact
    ? 'filter index rows'
    : await indexGaps(ch, t, tenant).catch(
        (err: unknown) => `filter index rows (no diagnosis: ${String(err)})`,
      );
  expect(index.length, message).toBe(derived.length);
  expect(index, message).toEqual(derived);
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
  settings: ClickHouseSettings = {},
): Promise<Set<string>> {
  const t = projectionTables(generation);
  const result = await ch.query({
    query: `SELECT event_id FROM ${sqlIdentifier(t.index)} WHERE tenant_id = ${sqlValue(tenant)} AND dim = 1`,
    format: 'JSONEachRow',
    clickhouse_settings: settings,
  });
  return new Set((await result.json<{ event_id: string }>()).map((r) => r.event_id));
}
