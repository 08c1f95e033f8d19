import { describe, expect, it } from 'vitest';
import { replayShortfalls, type PartitionReach } from './replay-reach.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 30);
const part = (over: Partial<PartitionReach>): PartitionReach => ({
  topic: 'audit.events.v1',
  partition: 0,
  low: 0n,
  high: 100n,
  atSince: null,
  retentionMs: 30 * DAY,
  ...over,
});

describe('replayShortfalls', () => {
  it('finds none while the topic holds every record, from the start or from --since', () => {
    expect(replayShortfalls([part({}), part({ partition: 1, high: 0n })], undefined, NOW)).toEqual([]);
    expect(replayShortfalls([part({ atSince: 0n })], NOW - DAY, NOW)).toEqual([]);
  });

  it('refuses a replay from the start once records were deleted', () => {
    expect(replayShortfalls([part({ low: 40n })], undefined, NOW)).toEqual([
      'audit.events.v1 partition 0 no longer holds its records before offset 40',
    ]);
  });

  it('takes a --since only where a record the partition still holds is older', () => {
    // The first record at --since or later is past the first held one: a held record is older than --since.
    expect(replayShortfalls([part({ low: 40n, atSince: 41n })], NOW - DAY, NOW)).toEqual([]);
    // No record at --since or later: every held one is older.
    expect(replayShortfalls([part({ low: 40n, atSince: 100n })], NOW, NOW)).toEqual([]);
    // The first held record is at --since or later: a deleted one may have been too.
    expect(replayShortfalls([part({ low: 40n, atSince: 40n })], NOW - 40 * DAY, NOW)).toEqual([
      'audit.events.v1 partition 0 no longer holds its records before offset 40, which may be at --since or later',
    ]);
  });

  it('judges a partition whose every record was deleted by its retention', () => {
    const emptied = part({ low: 100n, high: 100n, atSince: 100n });
    expect(replayShortfalls([emptied], NOW - 29 * DAY, NOW)).toEqual([]);
    expect(replayShortfalls([emptied], NOW - 31 * DAY, NOW)).toEqual([
      'audit.events.v1 partition 0 no longer holds any record, and --since is not within its retention',
    ]);
    expect(replayShortfalls([{ ...emptied, retentionMs: null }], NOW, NOW)).toHaveLength(1);
  });
});
