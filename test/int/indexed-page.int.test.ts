import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropClickHouseDatabase, migrateClickHouse } from '@audit/shared/migrations';
import { clickhouseErrorCode, sqlValue, type ClickHouseClient } from '@audit/shared/platform';
import { FILTER_DIMS, projectionTables } from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { clickhouseSink } from '../../services/projector/src/adapters/clickhouse.sink.js';
import { uniqueNames } from '../support/names.js';
import { clickhouseSettings, testClickHouse, testGuard } from '../support/stack.js';
import type { PageGuess } from '../../services/gateway/src/domain/page-density.js';
import { indexedPage } from '../../services/gateway/src/adapters/indexed-page.js';

const names = uniqueNames('idxpage');
const ch = testClickHouse(names);
const live = { ...projectionTables(1), indexed: true };
const MINUTE = 60_000;
const now = Date.UTC(2026, 10, 24, 12);
const TOO_MANY_ROWS = 158;

// Counts the reads ClickHouse refused over their row budget (the page catches them, so they are seen here), and
// the reads of the summary.
let refused = 0;
let summaryReads = 0;
const counting = {
  query: (params: Parameters<ClickHouseClient['query']>[0]) => {
    if (params.query.includes(live.buckets)) summaryReads += 1;
    return ch.query(params).catch((err: unknown) => {
      if (clickhouseErrorCode(err) === TOO_MANY_ROWS) refused += 1;
      throw err;
    });
  },
} as ClickHouseClient;

// A tenant whose newest 150 events are a minute apart, above a gap of six months and 100,000 events a second
// apart: a density measured across the gap sizes a window that would read all of those.
const recent = Array.from({ length: 150 }, (_, i) => now - (i + 1) * MINUTE);
const older = Array.from({ length: 100_000 }, (_, i) => now - 183 * 24 * 60 * MINUTE - i * 1000);
// One patient's record: a few events of one resource among the older ones.
const patient = older.filter((_, i) => i % 9_000 === 4_000);
const PATIENT = 'pat-rare';

beforeAll(async () => {
  await migrateClickHouse(clickhouseSettings(names));
  const sink = clickhouseSink(ch, names.database, 'live', await testGuard(ch)).on(projectionTables(1));
  const stamps = [...recent, ...older];
  for (let i = 0; i < stamps.length; i += 20_000) {
    await sink.insert(
      stamps.slice(i, i + 20_000).map((timestamp) =>
        sampleRecord({
          tenant_id: names.tenant,
          timestamp,
          ...(patient.includes(timestamp) && { resource_id: PATIENT }),
        }),
      ),
    );
  }
}, 120_000);
afterAll(async () => {
  await ch.close();
  await dropClickHouseDatabase(clickhouseSettings(names));
});

// Slices of the filter index that hold every event: its action, and its resource type.
const everyEvent = [
  { dim: FILTER_DIMS.action, value: 'phi.read' },
  { dim: FILTER_DIMS.resource_type, value: 'claim' },
];

/** The 120 newest events below `top`, read without a slice or through the first `sliced` of everyEvent. */
const page = (top: number, guess: PageGuess | undefined, sliced: number) =>
  indexedPage<{ ts: string }>(
    counting,
    live,
    {
      tenantId: names.tenant,
      slices: everyEvent.slice(0, sliced),
      conditions: [`tenant_id = ${sqlValue(names.tenant)}`],
    },
    'ts',
    120,
    0,
    top,
    guess,
  ).then((found) => found.rows.map((r) => Number(r.ts)));

describe('indexedPage with a density guessed from the page above', () => {
  const below = recent.at(-1)!;
  const expected = [...recent, ...older].filter((ts) => ts < below).slice(0, 120);
  const acrossTheGap = 150 / (now - older[0]!);

  it.each([0, 1, 2])('reads the same page for any guess, through %i slices', async (sliced) => {
    for (const density of [acrossTheGap, 1 / 1000, 1])
      for (const slice of sliced === 2 ? [0, 1] : [undefined])
        expect(await page(below, { density, slice }, sliced), `density ${density}`).toEqual(expected);
    expect(await page(below, undefined, sliced)).toEqual(expected);
    // A first page: the recent events, from a floor above the gap, a floor below it, or a density alone.
    for (const floor of [recent[119]!, recent[140]!, older[5]!, undefined])
      expect(await page(now, { density: acrossTheGap, floor }, sliced), `floor ${floor}`).toEqual(
        recent.slice(0, 120),
      );
  });

  it('refuses a window guessed across the gap before reading it, and a first page reads down to its floor', async () => {
    const before = refused;
    await page(below, { density: acrossTheGap }, 0);
    await page(below, { density: acrossTheGap }, 1);
    await page(below, { density: acrossTheGap, slice: 1 }, 2);
    await page(now, { density: acrossTheGap, floor: recent[119]! }, 0);
    await page(now, { density: acrossTheGap, floor: recent[119]! }, 1);
    await page(now, { density: acrossTheGap, floor: recent[119]!, slice: 0 }, 2);
    expect(refused).toBe(before + 3);
  });
});

describe('indexedPage of a slice with few rows', () => {
  const read = (value: string, top: number, want: number, guess?: PageGuess) =>
    indexedPage<{ ts: string }>(
      counting,
      live,
      {
        tenantId: names.tenant,
        slices: [{ dim: FILTER_DIMS.resource_id, value }],
        conditions: [`tenant_id = ${sqlValue(names.tenant)}`, `resource_id = ${sqlValue(value)}`],
      },
      'ts',
      want,
      0,
      top,
      guess,
    ).then((found) => found.rows.map((r) => Number(r.ts)));
  const whole = { whole: true } as const;

  it('reads a rare value and an empty one whole after a short page, without the summary', async () => {
    const before = { refused, summaryReads };
    expect(await read(PATIENT, now, 120, whole)).toEqual(patient);
    expect(await read(PATIENT, now, 5, whole)).toEqual(patient.slice(0, 5));
    expect(await read(PATIENT, patient[5]!, 120, whole)).toEqual(patient.slice(6));
    expect(await read('pat-none', now, 120, whole)).toEqual([]);
    expect({ refused, summaryReads }).toEqual(before);
    // Without that guess, the summary says where the events are.
    expect(await read(PATIENT, now, 120)).toEqual(patient);
    expect(summaryReads).toBe(before.summaryReads + 1);
  });

  it('leaves a slice that has grown to the summary after one refused read', async () => {
    const before = { refused, summaryReads };
    expect(await page(now, whole, 1)).toEqual([...recent, ...older].slice(0, 120));
    expect(await page(now, whole, 0)).toEqual([...recent, ...older].slice(0, 120));
    expect({ refused, summaryReads }).toEqual({
      refused: before.refused + 2,
      summaryReads: before.summaryReads + 2,
    });
  });
});
