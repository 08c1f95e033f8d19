import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropClickHouseDatabase, migrateClickHouse, projectionTables } from '@audit/shared';
import { sampleRecord } from '@audit/shared/test-support';
import { uniqueNames } from '../../../../test/support/names.js';
import { clickhouseSettings, testClickHouse } from '../../../../test/support/stack.js';
import { idKey } from '../domain/project-batch.js';
import { clickhouseSink } from './clickhouse.sink.js';

const names = uniqueNames('chsink');
const ch = testClickHouse(names);
const writer = clickhouseSink(ch, names.database).on(projectionTables(1));

beforeAll(async () => {
  await migrateClickHouse(clickhouseSettings(names));
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
    await ch.command({ query: 'DETACH TABLE audit_event_ids_mv' });
    await writer.insert([torn]);
    await ch.command({ query: 'ATTACH TABLE audit_event_ids_mv' });

    expect(await writer.storedKeys([torn, whole])).toEqual(new Set([idKey(whole)]));
    expect(await writer.storedKeys([torn, whole], true)).toEqual(new Set([idKey(torn), idKey(whole)]));
    // Repaired: the by-id table now has it, also for lookups without repair.
    expect(await writer.storedKeys([torn, whole])).toEqual(new Set([idKey(torn), idKey(whole)]));
  });
});
