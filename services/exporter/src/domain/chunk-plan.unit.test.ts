import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bucketsOf, countWindow, planChunks, type CountRows } from './chunk-plan.js';

/** Counts like ClickHouse's `intDiv(ts, width)` over the given timestamps, and records each count asked. */
function counter(timestamps: readonly number[]) {
  const asked: number[] = [];
  const count: CountRows = async (from, to, width) => {
    asked.push(width);
    const rows = new Map<number, number>();
    for (const ts of timestamps) {
      if (ts >= from && ts < to)
        rows.set(Math.floor(ts / width), (rows.get(Math.floor(ts / width)) ?? 0) + 1);
    }
    return [...rows].map(([bucket, n]) => ({ bucket, rows: n }));
  };
  return { count, asked };
}

const HOUR = 3_600_000;

describe('bucketsOf', () => {
  it('clamps buckets to the window and orders them newest first', () => {
    const counts = [
      { bucket: 1, rows: 2 },
      { bucket: 3, rows: 5 },
      { bucket: 2, rows: 0 },
    ];
    expect(bucketsOf(counts, 10, 15, 35)).toEqual([
      { from: 30, to: 35, rows: 5 },
      { from: 15, to: 20, rows: 2 },
    ]);
  });
});

describe('planChunks', () => {
  it('merges buckets up to the chunk size and tiles the whole window', () => {
    const buckets = [
      { from: 90, to: 100, rows: 3 },
      { from: 50, to: 60, rows: 4 },
      { from: 20, to: 30, rows: 2 },
    ];
    expect(planChunks(buckets, 0, 120, 6)).toEqual([
      { from: 90, to: 120, rows: 3 },
      { from: 0, to: 90, rows: 6 },
    ]);
  });

  it('gives a bucket larger than a chunk a chunk of its own, and no chunk to an empty window', () => {
    expect(planChunks([{ from: 5, to: 6, rows: 9 }], 0, 10, 4)).toEqual([{ from: 0, to: 10, rows: 9 }]);
    expect(planChunks([], 0, 10, 4)).toEqual([]);
  });
});

describe('countWindow', () => {
  it('counts per hour, and again per second and per millisecond only where a bucket is larger than a chunk', async () => {
    const burst = Array.from({ length: 5 }, () => 2 * HOUR + 1234);
    const { count, asked } = counter([10, HOUR + 5, ...burst, 2 * HOUR + 1500]);
    const buckets = await countWindow(count, 0, 3 * HOUR, 4);
    expect(buckets).toEqual([
      { from: 2 * HOUR + 1500, to: 2 * HOUR + 1501, rows: 1 },
      { from: 2 * HOUR + 1234, to: 2 * HOUR + 1235, rows: 5 },
      { from: HOUR, to: 2 * HOUR, rows: 1 },
      { from: 0, to: HOUR, rows: 1 },
    ]);
    expect(asked).toEqual([HOUR, 1000, 1]);
  });
});

describe('the plan of any window (property)', () => {
  it('tiles the window newest first; each chunk holds its range rows, at most a chunk unless one millisecond', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3 * HOUR }), { maxLength: 300 }),
        fc.array(fc.integer({ min: 0, max: 3 * HOUR }), { maxLength: 5 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: HOUR }),
        fc.integer({ min: 1, max: 3 * HOUR }),
        async (spread, hot, chunkRows, since, length) => {
          const until = since + length;
          // Runs of events in one millisecond, as bursts leave them.
          const timestamps = [...spread, ...hot.flatMap((ts) => Array.from({ length: 30 }, () => ts))];
          const { count } = counter(timestamps);
          const chunks = planChunks(
            await countWindow(count, since, until, chunkRows),
            since,
            until,
            chunkRows,
          );
          const inWindow = timestamps.filter((ts) => ts >= since && ts < until);
          if (inWindow.length === 0) {
            expect(chunks).toEqual([]);
            return;
          }
          expect(chunks[0]!.to).toBe(until);
          expect(chunks.at(-1)!.from).toBe(since);
          chunks.forEach((c, i) => {
            if (i > 0) expect(c.to).toBe(chunks[i - 1]!.from);
            expect(c.from).toBeLessThan(c.to);
            const held = inWindow.filter((ts) => ts >= c.from && ts < c.to);
            expect(c.rows).toBe(held.length);
            if (c.rows > chunkRows) expect(new Set(held).size).toBe(1);
          });
        },
      ),
    );
  });
});
