import type { ClickHouseClient } from '@audit/shared/platform';
import { sqlValue } from '@audit/shared/platform';
import { projectionTables } from '@audit/shared/projection';
import { waitFor } from './wait-for.js';

/** The tables of the first generation, the one tests tamper with. */
const LIVE = projectionTables(1);

/** A mutation, waited for: ClickHouse 18.16 runs them in the background and has no `mutations_sync`. */
export async function mutate(ch: ClickHouseClient, sql: string): Promise<void> {
  await ch.command({ query: sql });
  await waitFor('the mutation done', async () => {
    const result = await ch.query({
      query: `SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND is_done = 0`,
      format: 'JSONEachRow',
    });
    return Number((await result.json<{ n: string }>())[0]!.n) === 0;
  });
}

/**
 * One field of one event changed by mutations wherever the read path keeps the event's columns: the events table
 * and the filter index, which holds a copy of each row per filter dimension (docs/architecture.md "Read path").
 */
export async function changeEverywhere(
  ch: ClickHouseClient,
  tenant: string,
  eventId: string,
  assignment: string,
): Promise<void> {
  for (const table of [LIVE.events, LIVE.index]) {
    await mutate(
      ch,
      `ALTER TABLE ${table} UPDATE ${assignment} WHERE tenant_id = ${sqlValue(tenant)} AND event_id = ${sqlValue(eventId)}`,
    );
  }
}

/**
 * What someone with write access to ClickHouse could do to a tenant's rows, done to the live events table: a field
 * of `changed` set by a mutation, `deleted` deleted, `a` and `b` given each other's times (a key column, which a
 * mutation cannot change: the rows are read, deleted and written again), and a row with the id `forged` inserted
 * at `forgedTs`.
 */
export async function tamperWithRows(
  ch: ClickHouseClient,
  tenant: string,
  ids: { changed: string; deleted: string; a: string; b: string; forged: string },
  forgedTs: number,
): Promise<void> {
  const ofTenant = `tenant_id = ${sqlValue(tenant)}`;
  await mutate(
    ch,
    `ALTER TABLE audit_events UPDATE user_id = 'mallory' WHERE ${ofTenant} AND event_id = ${sqlValue(ids.changed)}`,
  );
  await mutate(
    ch,
    `ALTER TABLE audit_events DELETE WHERE ${ofTenant} AND event_id = ${sqlValue(ids.deleted)}`,
  );
  const pairIds = `(${sqlValue(ids.a)}, ${sqlValue(ids.b)})`;
  const pair = await (
    await ch.query({
      query: `SELECT * FROM audit_events WHERE event_id IN ${pairIds}`,
      format: 'JSONEachRow',
    })
  ).json<Record<string, unknown>>();
  if (pair.length !== 2) throw new Error(`expected the two rows to swap, found ${pair.length}`);
  await mutate(ch, `ALTER TABLE audit_events DELETE WHERE event_id IN ${pairIds}`);
  await ch.insert({
    table: 'audit_events',
    format: 'JSONEachRow',
    values: [
      { ...pair[0], ts: pair[1]!.ts },
      { ...pair[1], ts: pair[0]!.ts },
    ],
  });
  await ch.command({
    query: `INSERT INTO audit_events (tenant_id, ts, event_id, action, user_id, user_role, resource_type, resource_id,
      fields_accessed, phi_involved, source_ip, user_agent, justification, success, details, ingested_at)
      VALUES (${sqlValue(tenant)}, ${forgedTs}, ${sqlValue(ids.forged)}, 'phi.read', 'u', 'r', 't', 'x', '[]', 1, '', '', '', 1, '{}', ${forgedTs})`,
  });
}
