import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FILTER_DIMS,
  dropClickHouseDatabase,
  migrateClickHouse,
  projectionTables,
  sqlValue,
} from '@audit/shared';
import { sampleRecord } from '@audit/shared/test-support';
import { clickhouseSink } from '../../../projector/src/adapters/clickhouse.sink.js';
import { uniqueNames } from '../../../../test/support/names.js';
import { clickhouseSettings, testClickHouse } from '../../../../test/support/stack.js';
import { indexedPage } from './indexed-page.js';

const names = uniqueNames('idxpage');
const ch = testClickHouse(names);
const live = { ...projectionTables(1), indexed: true };
const MINUTE = 60_000;
const now = Date.UTC(2026, 10, 24, 12);
const tenant = sqlValue(names.tenant);

// A tenant whose newest 150 events are a minute apart, above a gap of six months and 100,000 events a second
// apart: a density measured across the gap sizes a window that would read all of those.
const recent = Array.from({ length: 150 }, (_, i) => now - (i + 1) * MINUTE);
const older = Array.from({ length: 100_000 }, (_, i) => now - 183 * 24 * 60 * MINUTE - i * 1000);

beforeAll(async () => {
  await migrateClickHouse(clickhouseSettings(names));
  const sink = clickhouseSink(ch, names.database).on(projectionTables(1));
  const stamps = [...recent, ...older];
  for (let i = 0; i < stamps.length; i += 20_000) {
    await sink.insert(
      stamps.slice(i, i + 20_000).map((timestamp) => sampleRecord({ tenant_id: names.tenant, timestamp })),
    );
  }
}, 120_000);
afterAll(async () => {
  await ch.close();
  await dropClickHouseDatabase(clickhouseSettings(names));
});

/** The 120 newest events below `top`, no filter or one slice of the index (every event's action). */
const page = (top: number, density: number | undefined, sliced: boolean) =>
  indexedPage<{ ts: string }>(
    ch,
    live,
    {
      tenantId: names.tenant,
      slices: sliced ? [{ dim: FILTER_DIMS.action, value: 'phi.read' }] : [],
      conditions: [`tenant_id = ${tenant}`],
    },
    'ts',
    120,
    0,
    top,
    density,
  ).then((found) => found.map((r) => Number(r.ts)));

async function refusedReads(): Promise<number> {
  await ch.command({ query: 'SYSTEM FLUSH LOGS' });
  const [row] = await (
    await ch.query({
      query: `SELECT count() AS n FROM system.query_log
        WHERE exception LIKE '%Code: 158%' AND query LIKE ${sqlValue(`%${names.tenant}%`)}`,
      format: 'JSONEachRow',
    })
  ).json<{ n: string }>();
  return Number(row!.n);
}

describe('indexedPage with a density guessed from the page above', () => {
  const below = recent.at(-1)!;
  const expected = [...recent, ...older].filter((ts) => ts < below).slice(0, 120);

  it.each([false, true])('reads the same page for any guess, sliced: %s', async (sliced) => {
    const acrossTheGap = 150 / (now - older[0]!);
    for (const density of [undefined, acrossTheGap, 1 / 1000, 1])
      expect(await page(below, density, sliced), `density ${density}`).toEqual(expected);
    // From the top: the recent events, then the first of the older ones.
    expect(await page(now, acrossTheGap, sliced)).toEqual([...recent, ...older].slice(0, 120));
  });

  it('refuses a window guessed across the gap before reading it', async () => {
    const before = await refusedReads();
    await page(below, 150 / (now - older[0]!), false);
    await page(below, 150 / (now - older[0]!), true);
    await expect.poll(refusedReads, { timeout: 15_000 }).toBe(before + 2);
  });
});
