import { describe, expect, it } from 'vitest';
import { sampleRecord } from '../test-support/sample-record.js';
import { holdCondition, holdCovers, purgeCondition, purgeHorizon } from './purge-scope.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('purgeHorizon', () => {
  it('is max_days back, on the hour before it; null without a maximum', () => {
    const now = Date.UTC(2026, 10, 30, 15, 42, 7, 123);
    expect(purgeHorizon({ max_days: null }, now)).toBeNull();
    expect(purgeHorizon({ max_days: 30 }, now)).toBe(Date.UTC(2026, 9, 31, 15, 0, 0, 0));
    expect(purgeHorizon({ max_days: 1 }, Date.UTC(2026, 0, 2, 0, 0, 0, 0))).toBe(Date.UTC(2026, 0, 1));
    expect(purgeHorizon({ max_days: 36_500 }, 10 * DAY)).toBe(0);
  });
});

describe('holds and the purge condition', () => {
  const t0 = Date.UTC(2020, 0, 1);
  const event = sampleRecord({ timestamp: t0, user_id: 'u-1', resource_id: 'r-1', patient_id: 'p-1' });

  it('a hold covers an event that matches every field it sets; one that sets none covers all', () => {
    expect(holdCovers({}, event)).toBe(true);
    expect(holdCovers({ user_id: 'u-1', patient_id: 'p-1' }, event)).toBe(true);
    expect(holdCovers({ user_id: 'u-1', patient_id: 'p-2' }, event)).toBe(false);
    expect(holdCovers({ resource_id: 'r-1', since: t0, until: t0 + 1 }, event)).toBe(true);
    expect(holdCovers({ since: t0 + 1 }, event)).toBe(false);
    expect(holdCovers({ until: t0 }, event)).toBe(false);
  });

  it('says the same in SQL, with every value quoted', () => {
    expect(holdCondition({})).toBe('1');
    expect(holdCondition({ user_id: "o'brien", since: 5, until: 9 })).toBe(
      "(user_id = 'o\\'brien') AND (ts >= 5) AND (ts < 9)",
    );
    expect(purgeCondition('t-1', { purgedBefore: 100, holds: [] })).toBe("tenant_id = 't-1' AND ts < 100");
    expect(purgeCondition('t-1', { purgedBefore: 100, holds: [{ patient_id: 'p-1' }, {}] })).toBe(
      "tenant_id = 't-1' AND ts < 100 AND NOT (((patient_id = 'p-1')) OR (1))",
    );
  });
});
