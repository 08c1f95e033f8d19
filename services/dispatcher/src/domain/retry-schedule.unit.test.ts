import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterFailure } from './retry-schedule.js';

const MIN = 60_000;
const spec = { delaysMs: [MIN, 5 * MIN, 30 * MIN, 120 * MIN, 720 * MIN], jitter: 0.2 };

describe('afterFailure', () => {
  it('follows the spec schedule without jitter at the midpoint, then turns terminal after attempt 6', () => {
    expect([1, 2, 3, 4, 5].map((n) => afterFailure(spec, n, 0, 0.5))).toEqual([
      { kind: 'retry', tier: 1, dueAt: MIN },
      { kind: 'retry', tier: 2, dueAt: 5 * MIN },
      { kind: 'retry', tier: 3, dueAt: 30 * MIN },
      { kind: 'retry', tier: 4, dueAt: 120 * MIN },
      { kind: 'retry', tier: 5, dueAt: 720 * MIN },
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
