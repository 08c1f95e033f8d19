import { describe, expect, it } from 'vitest';
import { behind } from './projection-catch-up.js';

describe('behind', () => {
  const ends = [
    { partition: 0, high: '10', low: '0' },
    { partition: 1, high: '5', low: '5' },
    { partition: 2, high: '7', low: '2' },
  ];

  it('names the partitions whose committed offset is below the end taken, or missing', () => {
    expect(behind(ends, [{ partition: 0, offset: '9' }])).toEqual([0, 2]);
    expect(
      behind(ends, [
        { partition: 0, offset: '-1' },
        { partition: 2, offset: '7' },
      ]),
    ).toEqual([0]);
  });

  it('passes empty partitions and those committed to or past the end taken', () => {
    expect(
      behind(ends, [
        { partition: 0, offset: '12' },
        { partition: 2, offset: '7' },
      ]),
    ).toEqual([]);
  });
});
