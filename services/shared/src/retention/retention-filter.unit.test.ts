import { describe, expect, it } from 'vitest';
import type { PurgeHistory } from './purge-history.js';
import { sampleRecord } from '../test-support/sample-record.js';
import { retentionFilter } from './retention-filter.js';

const T0 = Date.UTC(2020, 0, 1);
const NOW = Date.UTC(2026, 0, 1);

describe('retentionFilter', () => {
  it('leaves out what a purge removed, reads the purges at most once per refresh, and throws when it cannot', async () => {
    let now = 0;
    const history: PurgeHistory = {
      purgedBefore: T0 + 10,
      runs: [{ deletingSince: NOW - 1000, purgedBefore: T0 + 10 }],
      holds: [{ scope: { user_id: 'held' }, createdAt: NOW - 2000, releasedAt: null }],
    };
    const reads: (Map<string, PurgeHistory> | Error)[] = [
      new Map([['t', history]]),
      new Error('Postgres unreachable'),
      new Map(),
    ];
    let asked = 0;
    const filter = retentionFilter(
      {
        histories: async () => {
          const next = reads[asked++]!;
          if (next instanceof Error) throw next;
          return next;
        },
      },
      1000,
      () => now,
    );
    const old = sampleRecord({ tenant_id: 't', timestamp: T0, ingested_at: NOW });
    const held = sampleRecord({ tenant_id: 't', timestamp: T0, user_id: 'held', ingested_at: NOW });
    const recent = sampleRecord({ tenant_id: 't', timestamp: T0 + 10, ingested_at: NOW });
    const other = sampleRecord({ tenant_id: 'u', timestamp: T0, ingested_at: NOW });
    expect(await filter([old, held, recent, other])).toEqual([held, recent, other]);
    now = 999;
    expect(await filter([old])).toEqual([]);
    expect(asked).toBe(1);
    // A failed read is thrown, and asked again next time: the write waits rather than store without the purges.
    now = 1000;
    await expect(filter([old])).rejects.toThrow('Postgres unreachable');
    expect(await filter([old])).toEqual([old]);
    expect(asked).toBe(3);
  });
});
