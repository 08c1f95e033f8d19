import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_PATIENT_FIELDS } from '@audit/shared/contract';
import { dropClickHouseDatabase, migrateClickHouse } from '@audit/shared/migrations';
import { schemaWriter, sqlIdentifier, sqlValue } from '@audit/shared/platform';
import {
  ADDED_EVENT_COLUMNS,
  filterIndexState,
  filterIndexTables,
  indexedValues,
  projectionTables,
} from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { clickhouseSink } from '../../services/projector/src/adapters/clickhouse.sink.js';
import { backfillFilterIndex } from '../../services/ops/src/commands/backfill.command.js';
import { uniqueNames } from '../support/names.js';
import { V1_COLUMNS, V1_NAMES, v1Row } from '../support/previous-event-columns.js';
import { clickhouseSettings, testClickHouse } from '../support/stack.js';

const names = uniqueNames('upgrade-v2');
const ch = testClickHouse(names);
const settings = clickhouseSettings(names);
const live = projectionTables(1);
const old = filterIndexTables(1, 1);
const rows = async <T>(query: string) => (await ch.query({ query, format: 'JSONEachRow' })).json<T>();
const tableNames = async () =>
  (await rows<{ name: string }>('SELECT name FROM system.tables WHERE database = currentDatabase()')).map(
    (r) => r.name,
  );

// The filter index's dimensions as the previous version made them, before `patient_id` joined them.
const V1_DIMS = `[(1, action), (2, resource_type), (3, user_id), (4, resource_id), (5, source_ip),
  (6, toString(phi_involved)), (7, toString(success))]`;

/** A database as the previous version left it: its events table and its filter index of shape 1, with events. */
async function previousVersion() {
  await migrateClickHouse(settings);
  for (const name of [live.indexView, live.bucketsView, live.index, live.buckets]) {
    await ch.command({ query: `DROP TABLE ${sqlIdentifier(name)}` });
  }
  await ch.command({
    query: `ALTER TABLE ${sqlIdentifier(live.events)} ${ADDED_EVENT_COLUMNS.map((c) => `DROP COLUMN ${c.name}`).join(', ')}`,
  });
  await ch.command({ query: 'TRUNCATE TABLE filter_index_shape_ready' });
  await ch.command({
    query: `CREATE TABLE ${sqlIdentifier(old.index)} (tenant_id String, dim UInt8, value String, ${V1_COLUMNS})
      ENGINE = ReplacingMergeTree PARTITION BY intDiv(ts, 31536000000) ORDER BY (tenant_id, dim, value, ts, event_id)
      SETTINGS index_granularity = 256`,
  });
  await ch.command({
    query: `CREATE TABLE ${sqlIdentifier(old.buckets)} (tenant_id String, dim UInt8, value String, bucket Int64, n Int64)
      ENGINE = SummingMergeTree ORDER BY (tenant_id, dim, value, bucket)`,
  });
  await ch.command({
    query: `CREATE MATERIALIZED VIEW ${sqlIdentifier(old.indexView)} TO ${sqlIdentifier(old.index)} AS
      SELECT tenant_id, d.1 AS dim, d.2 AS value, ${V1_NAMES.join(', ')}
      FROM ${sqlIdentifier(live.events)} ARRAY JOIN ${V1_DIMS} AS d WHERE d.2 != ''`,
  });
  await ch.command({
    query: `CREATE MATERIALIZED VIEW ${sqlIdentifier(old.bucketsView)} TO ${sqlIdentifier(old.buckets)} AS
      SELECT tenant_id, d.1 AS dim, d.2 AS value, intDiv(ts, 3600000) AS bucket, toInt64(count()) AS n
      FROM ${sqlIdentifier(live.events)} ARRAY JOIN arrayConcat([(0, '')], ${V1_DIMS}) AS d
      WHERE d.1 = 0 OR d.2 != '' GROUP BY tenant_id, dim, value, bucket`,
  });
}

const olderEvents = Array.from({ length: 6 }, (_, i) =>
  sampleRecord({ tenant_id: names.tenant, timestamp: Date.UTC(2025, i, 1), user_id: `u-${i % 2}` }),
);

beforeAll(async () => {
  await previousVersion();
  await ch.insert({
    table: live.events,
    format: 'JSONEachRow',
    values: olderEvents.map(v1Row),
  });
});
afterAll(async () => {
  await ch.close();
  await dropClickHouseDatabase(settings);
});

describe("upgrading a projection of the event's version 1 to its later versions", () => {
  it('adds the columns, builds the new filter index beside the old one, and drops the old one once filled', async () => {
    await migrateClickHouse(settings);
    const columns = await rows<{ name: string; default_expression: string }>(
      `SELECT name, default_expression FROM system.columns WHERE database = currentDatabase()
       AND table = ${sqlValue(live.events)} AND name IN (${ADDED_EVENT_COLUMNS.map((c) => sqlValue(c.name)).join(', ')})`,
    );
    expect(columns.map((c) => c.name).sort()).toEqual(ADDED_EVENT_COLUMNS.map((c) => c.name).sort());
    // The events stored before read with the fields empty, as a version 1 record reads: no salts, so their leaves
    // stay of version 1.
    const stored = await rows<Record<string, unknown>>(
      `SELECT patient_id, purpose_of_use, recipient, disclosure, accounting_exclusion, leaf_salts FROM ${sqlIdentifier(live.events)}
       WHERE tenant_id = ${sqlValue(names.tenant)}`,
    );
    expect(stored).toEqual(olderEvents.map(() => ({ ...NO_PATIENT_FIELDS, disclosure: 0, leaf_salts: '' })));
    // Not complete (the events were there before its views): reads go without it, the old index stays for the
    // previous version's readers, and both are written meanwhile.
    expect(await filterIndexState(ch).ready(1)).toBe(false);
    expect(await tableNames()).toEqual(
      expect.arrayContaining([old.index, old.indexView, live.index, live.indexView]),
    );
    const newer = sampleRecord({
      tenant_id: names.tenant,
      timestamp: Date.UTC(2026, 0, 1),
      patient_id: 'p-1042',
    });
    await clickhouseSink(ch, names.database).on(live).insert([newer]);

    const run = await backfillFilterIndex({
      clickhouse: ch,
      schema: schemaWriter(ch, settings),
      now: Date.now,
    });
    expect(run).toMatchObject({ generation: 1, already_ready: false });
    expect(await filterIndexState(ch).ready(1)).toBe(true);
    const tables = await tableNames();
    for (const name of Object.values(old)) expect(tables).not.toContain(name);

    const index = await rows<{ d: string }>(
      `SELECT concat(toString(dim), '/', value, '/', event_id) AS d FROM ${sqlIdentifier(live.index)} FINAL
       WHERE tenant_id = ${sqlValue(names.tenant)}`,
    );
    const wanted = [...olderEvents, newer].flatMap((e) =>
      indexedValues(e).map(([dim, value]) => `${dim}/${value}/${e.event_id}`),
    );
    expect(index.map((r) => r.d).sort()).toEqual(wanted.sort());
    expect(wanted).toContain(`8/p-1042/${newer.event_id}`);
  });
});
