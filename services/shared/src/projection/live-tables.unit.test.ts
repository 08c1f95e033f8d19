import { describe, expect, it } from 'vitest';
import { liveTables } from './live-tables.js';
import { filterIndexTables, projectionTables, effectiveState, generationOf } from './projection-tables.js';

describe('projectionTables', () => {
  it('keeps the first names for generation 1 and suffixes later ones', () => {
    expect(projectionTables(1)).toEqual({
      generation: 1,
      events: 'audit_events',
      ids: 'audit_event_ids',
      idsView: 'audit_event_ids_mv',
      index: 'audit_events_by_s3',
      indexView: 'audit_events_by_mv_s3',
      buckets: 'audit_event_buckets_s3',
      bucketsView: 'audit_event_buckets_mv_s3',
    });
    expect(projectionTables(3).events).toBe('audit_events_g3');
    expect(projectionTables(3).index).toBe('audit_events_by_s3_g3');
    // The first shape kept the names it shipped with.
    expect(filterIndexTables(1, 1)).toEqual({
      index: 'audit_events_by',
      indexView: 'audit_events_by_mv',
      buckets: 'audit_event_buckets',
      bucketsView: 'audit_event_buckets_mv',
    });
    expect(() => projectionTables(0)).toThrow();
    expect([
      generationOf('audit_events'),
      generationOf('audit_events_g12'),
      generationOf('audit_event_ids'),
    ]).toEqual([1, 12, null]);
  });
});

describe('effectiveState', () => {
  const pause = { phase: 'pause', live: 2, target: 3, until: 10_000 } as const;
  it('keeps a pause until its deadline and a grace after it, then the live generation alone', () => {
    expect(effectiveState(pause, 14_000, 5_000)).toEqual(pause);
    expect(effectiveState(pause, 15_001, 5_000)).toEqual({ phase: 'live', live: 2 });
    expect(effectiveState({ phase: 'build', live: 2, target: 3 }, 99_999, 0)).toMatchObject({
      phase: 'build',
    });
  });
});

describe('liveTables', () => {
  it('asks once per TTL, shares a question in flight, and follows a switch after the TTL', async () => {
    let live = 1;
    let asked = 0;
    let now = 0;
    const tables = liveTables(
      {
        read: async () => {
          asked += 1;
          return { phase: 'live' as const, live, changedAt: 0 };
        },
      },
      { ready: async (generation) => generation === 2 },
      1000,
      () => now,
    );
    const [a, b] = await Promise.all([tables(), tables()]);
    expect([a.events, b.events, asked]).toEqual(['audit_events', 'audit_events', 1]);
    live = 2;
    now = 999;
    expect((await tables()).events).toBe('audit_events');
    now = 1000;
    expect(await tables()).toMatchObject({ events: 'audit_events_g2', indexed: true });
    expect(asked).toBe(2);
  });
});
