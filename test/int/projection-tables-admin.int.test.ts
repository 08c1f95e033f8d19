import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropClickHouseDatabase, migrateClickHouse } from '@audit/shared/migrations';
import { EVENTS_PARTITION_MS, projectionTables } from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { clickhouseSink } from '../../services/projector/src/adapters/clickhouse.sink.js';
import { uniqueNames } from '../support/names.js';
import { clickhouseSettings, testClickHouse, testGuard, testSchema } from '../support/stack.js';
import { copyBefore, createGeneration } from '../../services/ops/src/adapters/projection-tables.admin.js';

const names = uniqueNames('genadmin');
const ch = testClickHouse(names);

beforeAll(async () => {
  await migrateClickHouse(clickhouseSettings(names));
});
afterAll(async () => {
  await ch.close();
  await dropClickHouseDatabase(clickhouseSettings(names));
});

describe('copyBefore', () => {
  it('copies a history of 125 partitions (current ClickHouse refuses over 100 in one insert block)', async () => {
    const start = Date.UTC(2010, 0, 1);
    const history = Array.from({ length: 300 }, (_, i) =>
      sampleRecord({
        tenant_id: names.tenant,
        timestamp: start + Math.floor(i / 2) * EVENTS_PARTITION_MS + i,
        ingested_at: 1000 + i,
      }),
    );
    const guard = await testGuard(ch);
    await clickhouseSink(ch, names.database, 'live', guard).on(projectionTables(1)).insert(history);
    const next = await createGeneration(ch, testSchema(names, ch), projectionTables(1), 2, Date.now);
    // The events ingested before 1250: the first 250 of them, over 125 partitions.
    await copyBefore(ch, projectionTables(1), next, 1250, guard);
    const [copied] = await (
      await ch.query({
        query: `SELECT count() AS n, uniqExact(event_id) AS ids FROM ${next.events}`,
        format: 'JSONEachRow',
      })
    ).json<{ n: string; ids: string }>();
    expect(copied).toEqual({ n: '250', ids: '250' });
  });
});
