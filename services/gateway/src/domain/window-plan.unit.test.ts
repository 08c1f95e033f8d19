import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BUCKET_MS } from '@audit/shared/projection';
import { nextWindow } from './window-plan.js';

const H = BUCKET_MS;

describe('nextWindow', () => {
  it('is over when the summary counts nothing below hi', () => {
    expect(nextWindow([], 10 * H, 0, 100)).toBeNull();
    expect(nextWindow([{ start: 12 * H, count: 5 }], 10 * H, 0, 100)).toBeNull();
    expect(nextWindow([{ start: 1 * H, count: 5 }], 10 * H, 2 * H, 100)).toBeNull();
  });

  it('reaches lo when the counts hold too few events, ending where they end', () => {
    expect(nextWindow([{ start: 5 * H, count: 99 }], 10 * H, 2 * H, 100)).toEqual({ from: 2 * H, to: 6 * H });
  });

  it('takes a slice of a dense bucket, events spread evenly in it', () => {
    expect(nextWindow([{ start: 9 * H, count: 1000 }], 10 * H, 0, 100)).toEqual({
      from: 10 * H - 0.125 * H,
      to: 10 * H,
    });
    // From inside the bucket: only what lies below hi counts.
    expect(nextWindow([{ start: 9 * H, count: 1000 }], 9.5 * H, 0, 100)).toEqual({
      from: 9.5 * H - 0.125 * H,
      to: 9.5 * H,
    });
  });

  it('skips the months the summary counts empty, and takes buckets in any order', () => {
    const buckets = [
      { start: 0, count: 1000 },
      { start: 1000 * H, count: 20 },
    ];
    // Ends with the late hour; 20 from it, 105 more of the early one's 1000.
    const window = { from: H - 0.105 * H, to: 1001 * H };
    expect(nextWindow(buckets, 5000 * H, 0, 100)).toEqual(window);
    expect(nextWindow([...buckets].reverse(), 5000 * H, 0, 100)).toEqual(window);
  });

  it('widens by the share of counted events the other filters are expected to keep', () => {
    expect(nextWindow([{ start: 9 * H, count: 1000 }], 10 * H, 0, 100, 0.5)?.from).toBe(10 * H - 0.25 * H);
  });

  it('always lies in [lo, hi), and holds every counted bucket between its ends', () => {
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
          const w = nextWindow(buckets, hi, lo, want);
          const counted = buckets.some((b) => b.count > 0 && b.start < hi && b.start + H > lo);
          if (!w) return !counted;
          // Nothing counted between the window's end and hi is skipped.
          const skipped = buckets.some(
            (b) => b.count > 0 && Math.max(b.start, w.to) < Math.min(hi, b.start + H),
          );
          return Number.isInteger(w.from) && w.from >= lo && w.from < w.to && w.to <= hi && !skipped;
        },
      ),
    );
  });
});
