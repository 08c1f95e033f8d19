import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BUCKET_MS, windowStart } from './window-plan.js';

const H = BUCKET_MS;

describe('windowStart', () => {
  it('reaches lo when the counts hold too few events', () => {
    expect(windowStart([], 10 * H, 0, 100)).toBe(0);
    expect(windowStart([{ start: 5 * H, count: 99 }], 10 * H, 2 * H, 100)).toBe(2 * H);
  });

  it('takes a slice of a dense bucket, events spread evenly in it', () => {
    expect(windowStart([{ start: 9 * H, count: 1000 }], 10 * H, 0, 100)).toBe(10 * H - 0.125 * H);
    // From inside the bucket: only what lies below hi counts.
    expect(windowStart([{ start: 9 * H, count: 1000 }], 9.5 * H, 0, 100)).toBe(9.5 * H - 0.125 * H);
  });

  it('crosses empty months at no cost, and buckets in any order', () => {
    const buckets = [
      { start: 0, count: 1000 },
      { start: 1000 * H, count: 20 },
    ];
    // 20 from the late hour, 105 more of the early one's 1000.
    expect(windowStart(buckets, 5000 * H, 0, 100)).toBe(H - 0.105 * H);
    expect(windowStart([...buckets].reverse(), 5000 * H, 0, 100)).toBe(H - 0.105 * H);
  });

  it('widens by the share of counted events the other filters are expected to keep', () => {
    expect(windowStart([{ start: 9 * H, count: 1000 }], 10 * H, 0, 100, 0.5)).toBe(10 * H - 0.25 * H);
  });

  it('always starts below hi and never below lo', () => {
    const bucket = fc.record({
      start: fc.integer({ min: 0, max: 50 }).map((h) => h * H),
      count: fc.nat(10_000),
    });
    fc.assert(
      fc.property(
        fc.array(bucket),
        fc.integer({ min: 1, max: 50 * H }),
        fc.integer({ min: 0, max: 50 * H }),
        fc.integer({ min: 1, max: 1001 }),
        (buckets, hi, loRaw, want) => {
          const lo = Math.min(loRaw, hi - 1);
          const from = windowStart(buckets, hi, lo, want);
          return Number.isInteger(from) && from >= lo && from < hi;
        },
      ),
    );
  });
});
