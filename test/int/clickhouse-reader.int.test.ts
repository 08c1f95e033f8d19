import { afterAll, describe, expect, it } from 'vitest';
import {
  checkClickHouseSchema,
  ClickHouseSchemaBehindError,
  migrateClickHouse,
} from '@audit/shared/migrations';
import { createClickHouse } from '@audit/shared/platform';
import { filterIndexState, liveTables, projectionStateStore } from '@audit/shared/projection';
import { eventsReader } from '../../services/gateway/src/adapters/events.reader.js';
import { uniqueNames } from '../support/names.js';
import { cleanUp, clickhouseSettings, READER_USER } from '../support/stack.js';

const names = uniqueNames('chreader');
const admin = clickhouseSettings(names);
const reader = { ...admin, user: READER_USER };

afterAll(() => cleanUp(names));

describe("the gateway's read-only ClickHouse user (local stack)", () => {
  it('waits for a schema it may not create, then reads what the gateway reads and can write nothing', async () => {
    await expect(checkClickHouseSchema(reader)).rejects.toThrow();
    await migrateClickHouse(admin);
    await checkClickHouseSchema(reader);

    const client = createClickHouse(reader);
    try {
      const events = eventsReader(client, liveTables(projectionStateStore(client), filterIndexState(client)));
      expect(await events.listPage('tenant-a', {}, null, 10, Date.now())).toEqual([]);
      expect(await events.findEvent('tenant-a', '00000000-0000-4000-8000-000000000000')).toBeNull();
      for (const statement of [
        "INSERT INTO schema_migrations (version, name, checksum) VALUES (999, 'x', 'x')",
        'CREATE TABLE IF NOT EXISTS intruder (x UInt8) ENGINE = Memory',
        'DROP TABLE schema_migrations',
      ]) {
        await expect(client.command({ query: statement }), statement).rejects.toThrow(/readonly/i);
      }
    } finally {
      await client.close();
    }
  });

  it('names the migrations it waits for', async () => {
    const behind = uniqueNames('chbehind');
    const root = createClickHouse(clickhouseSettings(behind), 'default');
    try {
      await root.command({ query: `CREATE DATABASE ${behind.database}` });
      await root.command({
        query: `CREATE TABLE ${behind.database}.schema_migrations
          (version UInt32, name String, checksum String, applied_at DateTime DEFAULT now())
          ENGINE = MergeTree ORDER BY version`,
      });
      const check = checkClickHouseSchema({ ...clickhouseSettings(behind), user: READER_USER });
      await expect(check).rejects.toBeInstanceOf(ClickHouseSchemaBehindError);
      await expect(check).rejects.toThrow(
        /not applied yet: 0001_audit_events.sql, 0002_projection_state.sql/,
      );
    } finally {
      await root.close();
      await cleanUp(behind);
    }
  });
});
