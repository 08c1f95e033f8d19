import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropClickHouseDatabase, migrateClickHouse } from '@audit/shared/migrations';
import type { AuditEventRecord } from '@audit/shared/contract';
import { EVENT_TABLE_COLUMNS, projectionTables } from '@audit/shared/projection';
import { purgeCondition } from './purge-scope.js';
import { sampleRecord } from '@audit/shared/test-support';
import { expectFilterIndexExact } from '../../../../test/support/filter-index.js';
import { uniqueNames } from '../../../../test/support/names.js';
import { clickhouseSettings, testClickHouse } from '../../../../test/support/stack.js';
import { countWhere, deleteWhere, purgeTables, settleBuckets } from './purge.clickhouse.js';

// On the current engine too (scripts/test-current-clickhouse.sh): the purge's statements behave the same there.
const names = uniqueNames('purge');
const ch = testClickHouse(names);
const LIVE = projectionTables(1);
const HOUR = 3_600_000;

/** The events as the projector stores them: its views fill the filter index and the summary. */
async function store(events: AuditEventRecord[]) {
  const row = (e: AuditEventRecord) =>
    Object.fromEntries(
      EVENT_TABLE_COLUMNS.map(([name]) => {
        const value = name === 'ts' ? e.timestamp : e[name as keyof AuditEventRecord];
        return [name, typeof value === 'boolean' ? Number(value) : value];
      }),
    );
  await ch.insert({ table: LIVE.events, format: 'JSONEachRow', values: events.map(row) });
}

beforeAll(async () => {
  await migrateClickHouse(clickhouseSettings(names));
});
afterAll(async () => {
  await ch.close();
  await dropClickHouseDatabase(clickhouseSettings(names));
});

describe('the purge on ClickHouse', () => {
  it('deletes what the condition names from the events and the filter index, and settles the summary', async () => {
    const [tenant, other] = [`${names.tenant}-a`, `${names.tenant}-b`];
    const horizon = Date.UTC(2024, 0, 1, 12);
    // Three hours: two under the horizon (one of them shared with a held event), one after it.
    const at = (hours: number, i: number) => horizon + hours * HOUR + i;
    const events = [tenant, other].flatMap((t) =>
      [-2, -1, 0].flatMap((h) =>
        [0, 1, 2].map((i) =>
          sampleRecord({
            tenant_id: t,
            timestamp: at(h, i),
            user_id: i === 0 ? 'held' : `u-${i}`,
            patient_id: 'p',
          }),
        ),
      ),
    );
    await store(events);
    expect(await purgeTables(ch, names.database)).toEqual([
      { events: LIVE.events, index: { index: LIVE.index, buckets: LIVE.buckets } },
    ]);

    const where = purgeCondition(tenant, { purgedBefore: horizon, holds: [{ user_id: 'held' }] });
    expect(await countWhere(ch, LIVE.events, where)).toBe(4);
    await deleteWhere(ch, LIVE.events, where);
    await deleteWhere(ch, LIVE.index, where);
    await settleBuckets(ch, LIVE, tenant, horizon);

    const left = await (
      await ch.query({
        query: `SELECT event_id FROM ${LIVE.events} WHERE tenant_id = '${tenant}' ORDER BY ts`,
        format: 'JSONEachRow',
      })
    ).json<{ event_id: string }>();
    const kept = events.filter(
      (e) => e.tenant_id === tenant && (e.timestamp >= horizon || e.user_id === 'held'),
    );
    expect(left.map((r) => r.event_id)).toEqual(kept.map((e) => e.event_id));
    await expectFilterIndexExact(ch, tenant);
    await expectFilterIndexExact(ch, other);
    expect(await countWhere(ch, LIVE.events, `tenant_id = '${other}'`)).toBe(9);

    // Settling again changes nothing: every count is already what the events table holds.
    await settleBuckets(ch, LIVE, tenant, horizon);
    await expectFilterIndexExact(ch, tenant);
  });
});
