import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterFailure, hop, type RetryPolicy } from './retry-schedule.js';

const MIN = 60_000;
const spec: RetryPolicy = {
  delaysMs: [MIN, 5 * MIN, 30 * MIN, 120 * MIN, 720 * MIN],
  jitter: 0.2,
  retryAfterMaxMs: 24 * 60 * MIN,
};

describe('afterFailure', () => {
  it('follows the spec schedule without jitter at the midpoint, then turns terminal after attempt 6', () => {
    expect([1, 2, 3, 4, 5].map((n) => afterFailure(spec, n, 0, 0.5))).toEqual([
      { kind: 'retry', tier: 1, dueAt: MIN, notBefore: null },
      { kind: 'retry', tier: 2, dueAt: 5 * MIN, notBefore: null },
      { kind: 'retry', tier: 3, dueAt: 30 * MIN, notBefore: null },
      { kind: 'retry', tier: 4, dueAt: 120 * MIN, notBefore: null },
      { kind: 'retry', tier: 5, dueAt: 720 * MIN, notBefore: null },
    ]);
    expect(afterFailure(spec, 6, 0, 0.5)).toEqual({ kind: 'terminal' });
  });

  it('keeps every due time within ±20 % of its delay after the failure', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const step = afterFailure(spec, n, 1000, r);
          if (step.kind !== 'retry') return false;
          const delay = spec.delaysMs[n - 1]!;
          return step.dueAt - 1000 >= Math.floor(delay * 0.8) && step.dueAt - 1000 <= Math.ceil(delay * 1.2);
        },
      ),
    );
  });
});

describe('Retry-After', () => {
  it('changes nothing when the receiver asks for less than the tier waits anyway', () => {
    expect(afterFailure(spec, 1, 0, 0.5, 30_000)).toEqual({
      kind: 'retry',
      tier: 1,
      dueAt: MIN,
      notBefore: null,
    });
    expect(afterFailure(spec, 6, 0, 0.5, 30_000)).toEqual({ kind: 'terminal' });
  });

  it('holds the retry until asked, at most retryAfterMaxMs, as the same attempt, hopping through the tiers', () => {
    const step = afterFailure(spec, 1, 0, 0.5, 3 * 60 * MIN);
    expect(step).toEqual({
      kind: 'retry',
      tier: 4,
      dueAt: Math.floor(120 * MIN * 0.8),
      notBefore: 180 * MIN,
    });
    expect(afterFailure(spec, 2, 0, 0.5, 99 * 24 * 60 * MIN)).toMatchObject({ notBefore: 24 * 60 * MIN });
  });

  it('hops never past notBefore, never ahead of a record put in the same tier at the same time, and end at it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 * 60 * MIN }),
        fc.integer({ min: 0, max: 10 ** 12 }),
        (wait, start) => {
          const notBefore = start + wait;
          let now = start;
          for (let hops = 0; hops < 100; hops++) {
            const next = hop(spec, notBefore, now);
            const delay = spec.delaysMs[next.tier - 1]!;
            if (next.dueAt === notBefore) return next.tier === 1 && notBefore - now < delay * 1.2;
            // Due at the earliest of its tier's jitter range, and out of it (at the latest) before notBefore.
            expect(next.dueAt).toBe(now + Math.floor(delay * 0.8));
            expect(now + Math.ceil(delay * 1.2)).toBeLessThanOrEqual(notBefore);
            // The worst case: it comes out at the end of its tier's range.
            now += Math.ceil(delay * 1.2);
          }
          return false;
        },
      ),
    );
  });
});
