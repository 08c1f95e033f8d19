import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropClickHouseDatabase, migrateClickHouse } from '@audit/shared/migrations';
import { sqlValue } from '@audit/shared/platform';
import { projectionTables } from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { clickhouseSink } from '../../services/projector/src/adapters/clickhouse.sink.js';
import { expectFilterIndexExact } from '../support/filter-index.js';
import { uniqueNames } from '../support/names.js';
import { clickhouseSettings, testClickHouse } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const names = uniqueNames('indexcheck');
const ch = testClickHouse(names);
// The projector's writer: its inserts carry the query ids the check waits for.
const writer = clickhouseSink(ch, names.database).on(projectionTables(1));

const eventsOf = (tenant: string, n: number) =>
  Array.from({ length: n }, () => sampleRecord({ tenant_id: tenant, patient_id: 'p-1042' }));

/** The tenant's events in the events table alone, whatever its views have written. */
async function inEventsTable(tenant: string): Promise<number> {
  const result = await ch.query({
    query: `SELECT count() AS n FROM audit_events WHERE tenant_id = ${sqlValue(tenant)}`,
    format: 'JSONEachRow',
  });
  return Number((await result.json<{ n: string }>())[0]?.n);
}

beforeAll(() => migrateClickHouse(clickhouseSettings(names)));
afterAll(async () => {
  await ch.close();
  await dropClickHouseDatabase(clickhouseSettings(names));
});

describe('expectFilterIndexExact', () => {
  it('compares once the inserts have written their views, not as soon as their events are visible', async () => {
    // Views run in name order: one taking 2 s between the by-id view and the index's holds the index back that
    // long after the events are visible, as a catch-up insert of tens of thousands of events does on its own.
    await ch.command({ query: 'CREATE TABLE slow (s UInt8) ENGINE = Null' });
    await ch.command({
      query:
        'CREATE MATERIALIZED VIEW audit_events_a_slow_mv TO slow AS SELECT sleep(2) AS s FROM audit_events',
    });
    const tenant = `${names.tenant}-slow`;
    try {
      const inserted = writer.insert(eventsOf(tenant, 100));
      await waitFor('the events visible', async () => (await inEventsTable(tenant)) === 100, {
        intervalMs: 20,
      });
      await expectFilterIndexExact(ch, tenant);
      await inserted;
    } finally {
      await ch.command({ query: 'DROP TABLE audit_events_a_slow_mv' });
      await ch.command({ query: 'DROP TABLE slow' });
    }
  });

  it('names how many events lack index rows, in which dimensions, and where they came from', async () => {
    const tenant = `${names.tenant}-lacking`;
    await writer.insert(eventsOf(tenant, 2));
    // The events and by-id tables written, the index not: what an insert cut short between the two leaves.
    await ch.command({ query: `DETACH TABLE ${projectionTables(1).indexView}` });
    await writer.insert(eventsOf(tenant, 3));
    await ch.command({ query: `ATTACH TABLE ${projectionTables(1).indexView}` });

    await expect(expectFilterIndexExact(ch, tenant)).rejects.toThrow(
      new RegExp(
        '3 of 5 events lack index rows; missing rows by dimension: action 3, resource_type 3, user_id 3, ' +
          'resource_id 3, source_ip 3, phi_involved 3, success 3, patient_id 3; ' +
          'lacking rows: 3 events ingested .*, inserted in blocks (\\d+)-\\1, 0 without by-id rows; ' +
          'with every row: 2 events',
      ),
    );
  });
});
