// What bench:integrity reads to know how far a run has come (its events queryable in ClickHouse, its events
// leaves of the notary's trees in Postgres) and how it readies ClickHouse for a run.
import type pg from 'pg';
import { sleep, sqlIdentifier, sqlList, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import { projectionTables } from '@audit/shared/projection';

/**
 * The run's events that reads can see: in the by-id table and in the filter index, whose view writes last (as
 * bench:ingest counts them).
 */
export async function queryable(ch: ClickHouseClient, tenants: readonly string[]): Promise<number> {
  const ofRun = `tenant_id IN ${sqlList(tenants)}`;
  const r = await ch.query({
    query: `SELECT least((SELECT count() FROM audit_event_ids WHERE ${ofRun}),
      (SELECT count() FROM ${projectionTables(1).index} WHERE ${ofRun} AND dim = 1)) AS n`,
    format: 'JSONEachRow',
  });
  return Number((await r.json<{ n: string }>())[0]?.n ?? 0);
}

/** Leaves of the tenants' trees, and the checkpoints signed of them. */
export async function treeProgress(pool: pg.Pool, tenants: readonly string[]) {
  const { rows } = await pool.query<{ leaves: string; checkpoints: string; signed: string }>(
    `SELECT coalesce(sum(size), 0) AS leaves, coalesce(sum(signed_size), 0) AS signed,
       (SELECT count(*) FROM integrity_checkpoints WHERE tenant_id = ANY($1)) AS checkpoints
     FROM integrity_trees WHERE tenant_id = ANY($1)`,
    [tenants],
  );
  return {
    leaves: Number(rows[0]!.leaves),
    signed: Number(rows[0]!.signed),
    checkpoints: Number(rows[0]!.checkpoints),
  };
}

/** When `count()` first reaches `target` (performance.now()), and when it was first above zero. */
export async function reached(count: () => Promise<number>, target: number, everyMs: number) {
  let first: number | null = null;
  for (;;) {
    const n = await count();
    const now = performance.now();
    if (first === null && n > 0) first = now;
    if (n >= target) return { first: first ?? now, last: now };
    await sleep(everyMs);
  }
}

/**
 * Empties the audit event tables of the bench's database, so that every run starts from the same state: merging a
 * run's parts into the earlier runs' costs ClickHouse more with each run (36.8 µs an event in the first of six
 * runs, 88.7 in the last).
 */
export async function emptyEventTables(ch: ClickHouseClient, database: string) {
  const r = await ch.query({
    query: `SELECT name FROM system.tables WHERE database = ${sqlValue(database)} AND engine LIKE '%MergeTree'`,
    format: 'JSONEachRow',
  });
  for (const { name } of await r.json<{ name: string }>()) {
    if (name.startsWith('audit_'))
      await ch.command({ query: `TRUNCATE TABLE ${sqlIdentifier(database)}.${sqlIdentifier(name)}` });
  }
}

/** Until ClickHouse has merged what a run wrote (no merge for 1.5 s), so that runs start alike and merges count. */
export async function mergesSettled(ch: ClickHouseClient) {
  for (let quiet = 0; quiet < 3;) {
    const r = await ch.query({ query: 'SELECT count() AS n FROM system.merges', format: 'JSONEachRow' });
    quiet = Number((await r.json<{ n: string }>())[0]?.n ?? 0) === 0 ? quiet + 1 : 0;
    await sleep(500);
  }
}
