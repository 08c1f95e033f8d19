import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEventRecord } from '@audit/shared/contract';
import { dropClickHouseDatabase, migrateClickHouse } from '@audit/shared/migrations';
import { sqlIdentifier, schemaWriter } from '@audit/shared/platform';
import {
  BUCKET_MS,
  ensureFilterIndex,
  filterIndexState,
  indexedValues,
  projectionStateStore,
  projectionTables,
} from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { clickhouseSink } from '../../services/projector/src/adapters/clickhouse.sink.js';
import { backfillFilterIndex } from '../../services/ops/src/commands/backfill.command.js';
import { uniqueNames } from '../support/names.js';
import { opsCli } from '../support/ops-cli.js';
import { clickhouseSettings, testClickHouse } from '../support/stack.js';

const names = uniqueNames('backfill');
const ch = testClickHouse(names);
const ops = opsCli(names, () => 'postgres://unused@127.0.0.1:1/unused');
const g2 = projectionTables(2);
const DAY = 86_400_000;
const rows = async <T>(query: string) => (await ch.query({ query, format: 'JSONEachRow' })).json<T>();

/** Events over three 30-day partitions, with the values a filter index holds and some empty ones. */
const eventsAt = (from: number, n: number, tag: string): AuditEventRecord[] =>
  Array.from({ length: n }, (_, i) =>
    sampleRecord({
      tenant_id: names.tenant,
      timestamp: from + i * 7 * DAY + i,
      user_id: `${tag}-u${i % 3}`,
      resource_id: i % 4 === 0 ? '' : `p-${i}`,
      success: i % 5 !== 0,
    }),
  );

/** The index's rows and the summary's non-zero counts, as sorted texts. */
async function contents() {
  const index = await rows<{ d: string }>(
    `SELECT concat(toString(dim), '/', value, '/', event_id) AS d FROM ${sqlIdentifier(g2.index)}`,
  );
  const summary = await rows<{ d: string }>(
    `SELECT concat(toString(dim), '/', value, '/', toString(bucket), '=', toString(sum(n))) AS d
     FROM ${sqlIdentifier(g2.buckets)} GROUP BY dim, value, bucket HAVING sum(n) != 0`,
  );
  return { index: index.map((r) => r.d).sort(), summary: summary.map((r) => r.d).sort() };
}

function expected(events: readonly AuditEventRecord[]) {
  const index = events.flatMap((e) =>
    indexedValues(e).map(([dim, value]) => `${dim}/${value}/${e.event_id}`),
  );
  const counts = new Map<string, number>();
  for (const e of events) {
    for (const [dim, value] of [[0, ''] as [number, string], ...indexedValues(e)]) {
      const key = `${dim}/${value}/${Math.floor(e.timestamp / BUCKET_MS)}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return { index: index.sort(), summary: [...counts].map(([k, n]) => `${k}=${n}`).sort() };
}

beforeAll(async () => {
  await migrateClickHouse(clickhouseSettings(names));
  // A projection that held events before it had a filter index: generation 2 made as before this version.
  const g1 = projectionTables(1);
  await ch.command({ query: `CREATE TABLE ${sqlIdentifier(g2.events)} AS ${sqlIdentifier(g1.events)}` });
  await ch.command({ query: `CREATE TABLE ${sqlIdentifier(g2.ids)} AS ${sqlIdentifier(g1.ids)}` });
  await projectionStateStore(ch).write({ phase: 'live', live: 2 }, 'test', Date.now());
});
afterAll(async () => {
  await ch.close();
  await dropClickHouseDatabase(clickhouseSettings(names));
});

describe('ops backfill filter-index', () => {
  it('resumes after a stop, keeps events written meanwhile once, and ends exact and complete', async () => {
    const sink = clickhouseSink(ch, names.database).on(g2);
    const before = eventsAt(Date.UTC(2025, 0, 1), 12, 'old');
    await sink.insert(before);
    expect(await ensureFilterIndex(ch, schemaWriter(ch, clickhouseSettings(names)))).toEqual({
      generation: 2,
      ready: false,
    });

    // The first run stops after its first partition.
    const stop = new Error('stopped');
    await expect(
      backfillFilterIndex({
        clickhouse: ch,
        schema: schemaWriter(ch, clickhouseSettings(names)),
        now: Date.now,
        progress: () => {
          throw stop;
        },
      }),
    ).rejects.toBe(stop);
    expect(await filterIndexState(ch).ready(2)).toBe(false);

    // Written through the views meanwhile, into partitions done and not yet done.
    const meanwhile = eventsAt(Date.UTC(2025, 0, 2), 12, 'new');
    await sink.insert(meanwhile);

    const run = await ops(['backfill', 'filter-index', '--json']);
    expect(run.code, run.err).toBe(0);
    expect(run.json()).toMatchObject({ generation: 2, already_ready: false });
    expect(run.json<{ partitions: number }>().partitions).toBeGreaterThan(0);
    expect(await filterIndexState(ch).ready(2)).toBe(true);
    expect(await contents()).toEqual(expected([...before, ...meanwhile]));

    const again = await ops(['backfill', 'filter-index', '--json']);
    expect(again.json()).toMatchObject({ already_ready: true, partitions: 0 });
  });

  it('refuses stray options', async () => {
    const run = await ops(['backfill', 'filter-index', '--tenant', 'x']);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/--tenant does not apply/);
  });
});
