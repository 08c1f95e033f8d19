import { describe, expect, it } from 'vitest';
import { readPlan } from './read-plan.js';

const counts = (slice: string | null, ...ns: number[]) => ({
  slice,
  buckets: ns.map((count, i) => ({ start: i * 3_600_000, count })),
});

describe('readPlan', () => {
  it('reads the events table when no filter has a slice', () => {
    expect(readPlan(counts(null, 5, 5), [])).toEqual({
      slice: null,
      buckets: counts(null, 5, 5).buckets,
      share: 1,
    });
  });

  it('reads the smallest slice, expecting the other filters to keep their share of it', () => {
    const plan = readPlan(counts(null, 500, 500), [counts('action', 400, 100), counts('user', 10, 40)]);
    expect(plan.slice).toBe('user');
    expect(plan.share).toBeCloseTo(0.5);
  });

  it('reads a slice the summary counts nothing for (the counts only size windows)', () => {
    const plan = readPlan(counts(null), [counts('user'), counts('action', 3)]);
    expect(plan).toMatchObject({ slice: 'user', share: 1 });
  });
});
