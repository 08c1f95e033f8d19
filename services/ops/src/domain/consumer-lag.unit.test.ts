import { describe, expect, it } from 'vitest';
import { lagRows } from './consumer-lag.js';

const ends = [
  {
    topic: 'audit',
    partitions: [
      { partition: 0, low: '0', high: '10' },
      { partition: 1, low: '5', high: '7' },
    ],
  },
  { topic: 'retry.1', partitions: [{ partition: 0, low: '0', high: '3' }] },
];

describe('lagRows', () => {
  it('counts from the committed offset to the end, per partition', () => {
    const rows = lagRows(
      [
        {
          groupId: 'projector',
          topics: [
            {
              topic: 'audit',
              partitions: [
                { partition: 1, offset: '7' },
                { partition: 0, offset: '4' },
              ],
            },
          ],
        },
      ],
      ends,
    );
    expect(rows).toEqual([
      { group: 'projector', topic: 'audit', partition: 0, committed: '4', end: '10', lag: 6, oldest: '4' },
      { group: 'projector', topic: 'audit', partition: 1, committed: '7', end: '7', lag: 0, oldest: null },
    ]);
  });

  it('counts a partition never committed from its first kept record, and one behind retention from there too', () => {
    const rows = lagRows(
      [
        {
          groupId: 'g',
          topics: [
            {
              topic: 'audit',
              partitions: [
                { partition: 0, offset: '-1' },
                { partition: 1, offset: '2' },
              ],
            },
          ],
        },
      ],
      ends,
    );
    expect(rows.map((r) => [r.committed, r.lag, r.oldest])).toEqual([
      [null, 10, '0'],
      ['2', 2, '5'],
    ]);
  });

  it('leaves out topics a group never committed on, and topics it does not know', () => {
    const rows = lagRows(
      [
        {
          groupId: 'g',
          topics: [
            { topic: 'retry.1', partitions: [{ partition: 0, offset: '-1' }] },
            { topic: 'elsewhere', partitions: [{ partition: 0, offset: '3' }] },
          ],
        },
      ],
      ends,
    );
    expect(rows).toEqual([]);
  });
});
