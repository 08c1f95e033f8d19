import { describe, expect, it } from 'vitest';
import { exportRange, planExport, readAsk, readSizes } from './export-plan.js';

/** Keys in list order (newest first) with the given timestamps. */
const keys = (...ts: number[]) => ts.map((t, i) => ({ ts: t, id: String(1000 - i).padStart(4, '0') }));

describe('planExport', () => {
  it('returns everything, untruncated, up to the cap', () => {
    expect(planExport(keys(9, 8, 7), 3)).toEqual({ count: 3, truncated: false, cutTs: null, newestTs: 9 });
    expect(planExport([], 3)).toEqual({ count: 0, truncated: false, cutTs: null, newestTs: null });
  });

  it('cuts at the cap when the next event is in another millisecond', () => {
    expect(planExport(keys(9, 8, 7, 6), 3)).toEqual({ count: 3, truncated: true, cutTs: 7, newestTs: 9 });
  });

  it('leaves a millisecond that straddles the cap whole for the next call', () => {
    expect(planExport(keys(9, 8, 7, 7, 7, 6), 4)).toEqual({
      count: 2,
      truncated: true,
      cutTs: 8,
      newestTs: 9,
    });
    expect(planExport(keys(9, 9, 8, 8, 8), 4)).toEqual({ count: 2, truncated: true, cutTs: 9, newestTs: 9 });
  });

  it('returns the first cap events when more than cap share one millisecond', () => {
    expect(planExport(keys(5, 5, 5, 5), 3)).toEqual({ count: 3, truncated: true, cutTs: 5, newestTs: 5 });
  });
});

describe('exportRange', () => {
  it('bounds the stream by the newest planned event and, when truncated, the cut millisecond', () => {
    expect(exportRange({ action: 'phi.read' }, planExport(keys(9, 8, 7, 6), 3))).toEqual({
      action: 'phi.read',
      until: 10,
      since: 7,
    });
    expect(exportRange({ until: 5 }, planExport(keys(4, 3), 3))).toEqual({ until: 5 });
    expect(exportRange({}, planExport([], 3))).toBeNull();
  });
});

describe('readSizes', () => {
  const sized = (...bytes: number[]) => bytes.map((b, i) => ({ ts: 100 - i, id: String(i), bytes: b }));
  const limits = { rows: 3, bytes: 100 };

  it('cuts the planned keys into runs of at most the rows and bytes a read may take', () => {
    expect(readSizes(sized(1, 1, 1, 1, 1, 1, 1), 7, limits)).toEqual([3, 3, 1]);
    expect(readSizes(sized(40, 40, 40, 10, 90), 5, limits)).toEqual([2, 2, 1]);
  });

  it('gives a row larger than a read may take a read of its own', () => {
    expect(readSizes(sized(10, 500, 10), 3, limits)).toEqual([1, 1, 1]);
  });

  it('covers the planned rows only, and none when none are planned', () => {
    expect(readSizes(sized(1, 1, 1, 1, 1), 4, limits)).toEqual([3, 1]);
    expect(readSizes(sized(1, 1), 0, limits)).toEqual([]);
  });
});

describe('readAsk', () => {
  it('asks each run its size, and the last run and any read after it one row more', () => {
    expect([0, 1, 2, 3].map((i) => readAsk([3, 3, 1], i))).toEqual([3, 3, 2, 2]);
    expect(readAsk([5], 0)).toBe(6);
  });
});
