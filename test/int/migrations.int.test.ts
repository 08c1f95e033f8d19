import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { freshPostgres } from '../support/postgres.js';
import { afterAll, describe, expect, it } from 'vitest';
import { MigrationChecksumError, migrateClickHouse, migratePostgres } from '@audit/shared/migrations';
import { filterIndexState, projectionTables } from '@audit/shared/projection';
import { uniqueNames } from '../support/names.js';
import { cleanUp, clickhouseSettings, localTablesOf, testClickHouse } from '../support/stack.js';

const names = uniqueNames('migrations');
let postgres: Awaited<ReturnType<typeof freshPostgres>> | undefined;

afterAll(async () => {
  await postgres?.drop();
  await cleanUp(names);
});

describe('migrations', () => {
  it('ClickHouse: applies every file once; re-running is a no-op', async () => {
    const settings = clickhouseSettings(names);
    expect((await migrateClickHouse(settings)).applied).toEqual([
      '1_audit_events',
      '2_projection_state',
      '3_filter_index_state',
      '4_filter_index_shapes',
    ]);
    expect((await migrateClickHouse(settings)).applied).toEqual([]);
    const ch = testClickHouse(names);
    const tables = await (
      await ch.query({ query: 'SHOW TABLES', format: 'JSONEachRow' })
    ).json<{ name: string }>();
    // An empty projection gets a complete filter index at once: its views fill it from the first event on.
    const ready = await filterIndexState(ch).ready(1);
    await ch.close();
    // On a cluster a tenant's tables also have their rows' local table (docs/operations.md "ClickHouse cluster").
    const live = projectionTables(1);
    const sharded = [live.buckets, live.ids, live.events, live.index];
    const local = localTablesOf(sharded);
    expect(tables.map((t) => t.name).sort()).toEqual(
      [
        ...local,
        live.buckets,
        live.bucketsView,
        live.ids,
        live.idsView,
        live.events,
        live.index,
        live.indexView,
        'filter_index_backfill',
        'filter_index_ready',
        'filter_index_shape_backfill',
        'filter_index_shape_ready',
        'projection_acks',
        'projection_state',
        'schema_migrations',
      ].sort(),
    );
    expect(ready).toBe(true);
  });

  it('Postgres: applies in order in transactions, records them, refuses an edited one', async () => {
    postgres = await freshPostgres(names);
    const { url } = postgres;
    const dir = mkdtempSync(join(tmpdir(), 'pg-migrations-'));
    writeFileSync(join(dir, '0001_things.sql'), 'CREATE TABLE things (id int PRIMARY KEY);');
    writeFileSync(join(dir, '0002_more.sql'), 'ALTER TABLE things ADD COLUMN name text;');
    const dirUrl = pathToFileURL(`${dir}/`);

    expect((await migratePostgres(url, dirUrl)).applied).toEqual(['1_things', '2_more']);
    expect((await migratePostgres(url, dirUrl)).applied).toEqual([]);

    writeFileSync(join(dir, '0003_broken.sql'), 'CREATE TABLE half (id int); SELECT * FROM missing_table;');
    await expect(migratePostgres(url, dirUrl)).rejects.toThrow(/missing_table/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const half = await client.query("SELECT to_regclass('half') AS t");
    await client.end();
    expect(half.rows[0].t).toBeNull();

    writeFileSync(join(dir, '0003_broken.sql'), 'SELECT 1;');
    writeFileSync(join(dir, '0001_things.sql'), 'CREATE TABLE things (id bigint PRIMARY KEY);');
    await expect(migratePostgres(url, dirUrl)).rejects.toThrow(MigrationChecksumError);
  });
});
