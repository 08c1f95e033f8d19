import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OffsetTracker } from './offset-tracker.js';

describe('OffsetTracker', () => {
  it('commits past a record only once every earlier record is finished', () => {
    const t = new OffsetTracker();
    const takeCommits = () => {
      const due = t.commitsDue();
      t.committedTo(due);
      return due;
    };
    const a = t.begin('t', 0, '10', 2);
    const b = t.begin('t', 0, '11', 1);
    t.begin('t', 0, '12', 0);
    expect(takeCommits()).toEqual([]);
    b();
    a();
    expect(takeCommits()).toEqual([]);
    a();
    expect(takeCommits()).toEqual([{ topic: 't', partition: 0, offset: '13' }]);
    expect(takeCommits()).toEqual([]);
  });

  it('commits a record with no work at once', () => {
    const t = new OffsetTracker();
    const takeCommits = () => {
      const due = t.commitsDue();
      t.committedTo(due);
      return due;
    };
    t.begin('t', 1, '5', 0);
    expect(takeCommits()).toEqual([{ topic: 't', partition: 1, offset: '6' }]);
    const f = t.begin('t', 1, '6', 2);
    f();
    expect(takeCommits()).toEqual([]);
    f();
    expect(takeCommits()).toEqual([{ topic: 't', partition: 1, offset: '7' }]);
  });

  it('forgets partitions it no longer owns', () => {
    const t = new OffsetTracker();
    const takeCommits = () => {
      const due = t.commitsDue();
      t.committedTo(due);
      return due;
    };
    t.begin('t', 0, '1', 0);
    t.begin('t', 1, '1', 0);
    t.retainOnly((_topic, p) => p === 1);
    expect(takeCommits()).toEqual([{ topic: 't', partition: 1, offset: '2' }]);
  });

  it('never commits past an unfinished record, whatever the finishing order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 30 }),
        fc.integer(),
        (pieces, seed) => {
          const t = new OffsetTracker();
          const takeCommits = () => {
            const due = t.commitsDue();
            t.committedTo(due);
            return due;
          };
          const finishers = pieces.flatMap((n, i) => {
            const finish = t.begin('t', 0, String(i), n);
            return Array.from({ length: n }, () => ({ i, finish }));
          });
          const order = fc.sample(fc.shuffledSubarray(finishers, { minLength: finishers.length }), {
            numRuns: 1,
            seed,
          })[0]!;
          const remaining = [...pieces];
          for (const { i, finish } of order) {
            finish();
            remaining[i]! -= 1;
            const commit = takeCommits()[0];
            if (commit) {
              const firstUnfinished = remaining.findIndex((r) => r > 0);
              expect(Number(commit.offset)).toBeLessThanOrEqual(
                firstUnfinished === -1 ? pieces.length : firstUnfinished,
              );
            }
          }
        },
      ),
    );
  });
});
