import { describe, expect, it } from 'vitest';
import type { PurgeCandidate } from '@audit/shared/retention';
import { purgeDue } from './purge-due.js';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 11, 1, 12);
const schedule = { everyMs: 24 * HOUR, retryMs: HOUR };
const at = (hoursAgo: number) => new Date(NOW - hoursAgo * HOUR);
const last = (status: 'running' | 'succeeded' | 'failed', startedHoursAgo: number, endedHoursAgo?: number) =>
  ({
    tenant_id: 't',
    last: {
      status,
      started_at: at(startedHoursAgo),
      finished_at: endedHoursAgo === undefined ? null : at(endedHoursAgo),
    },
  }) satisfies PurgeCandidate;

describe('purgeDue', () => {
  it('is due for a tenant never purged', () => {
    expect(purgeDue({ tenant_id: 't', last: null }, schedule, NOW, undefined)).toBe(true);
  });

  it('waits a day after a run that succeeded, counted from when it began', () => {
    expect(purgeDue(last('succeeded', 23.9, 1), schedule, NOW, undefined)).toBe(false);
    expect(purgeDue(last('succeeded', 24, 23), schedule, NOW, undefined)).toBe(true);
  });

  it('tries a failed run again an hour after it ended', () => {
    expect(purgeDue(last('failed', 30, 0.5), schedule, NOW, undefined)).toBe(false);
    expect(purgeDue(last('failed', 30, 1), schedule, NOW, undefined)).toBe(true);
    expect(purgeDue(last('failed', 1), schedule, NOW, undefined)).toBe(true);
  });

  it('lets the lock decide about a run still said to be running', () => {
    expect(purgeDue(last('running', 0.1), schedule, NOW, undefined)).toBe(true);
  });

  it('leaves a tenant whose last check found nothing alone until its quiet time ends', () => {
    expect(purgeDue({ tenant_id: 't', last: null }, schedule, NOW, NOW + 1)).toBe(false);
    expect(purgeDue({ tenant_id: 't', last: null }, schedule, NOW, NOW)).toBe(true);
  });
});
