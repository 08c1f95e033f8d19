import { describe, expect, it } from 'vitest';
import { sampleRecord } from '@audit/shared/test-support';
import type { ConsumedRecord } from './consumed-record.js';
import { eventsToAppend, TreeGapError, treeBatch } from './tree-batch.js';

const record = (partition: number, offset: string, topic = 't'): ConsumedRecord => ({
  topic,
  partition,
  offset,
  key: null,
  value: null,
  headers: {},
});

describe('treeBatch', () => {
  it("spans each partition's offsets, and keeps the record each event came from", () => {
    const records = [record(1, '9'), record(0, '4'), record(1, '10'), record(0, '5'), record(1, '11')];
    const events = [sampleRecord(), sampleRecord(), sampleRecord()];
    const sources = [records[0]!, records[3]!, records[4]!];
    const batch = treeBatch(records, events, sources);
    expect(batch.runs).toEqual([
      { topic: 't', partition: 0, first: 4n, last: 5n },
      { topic: 't', partition: 1, first: 9n, last: 11n },
    ]);
    expect(batch).toMatchObject({ events, sources });
  });

  it('keeps the same partition of two generations of the topic apart', () => {
    const records = [record(0, '7', 't.g2'), record(0, '4'), record(0, '8', 't.g2')];
    expect(treeBatch(records, [], []).runs).toEqual([
      { topic: 't', partition: 0, first: 4n, last: 4n },
      { topic: 't.g2', partition: 0, first: 7n, last: 8n },
    ]);
  });
});

describe('eventsToAppend', () => {
  const [a, b, c, d] = [sampleRecord(), sampleRecord(), sampleRecord(), sampleRecord()];
  const batch = treeBatch(
    [record(0, '10'), record(1, '20'), record(0, '11'), record(0, '12'), record(1, '21')],
    [a, b, c, d],
    [record(0, '10'), record(1, '20'), record(0, '12'), record(1, '21')],
  );
  it('keeps every event of partitions appended up to the first offset of their run', () => {
    expect(
      eventsToAppend(
        batch,
        new Map([
          ['t:0', 10n],
          ['t:1', 20n],
        ]),
      ),
    ).toEqual({ events: [a, b, c, d], behind: [] });
  });

  it("leaves out what lies before a partition's position: part of a write done already", () => {
    expect(
      eventsToAppend(
        batch,
        new Map([
          ['t:0', 11n],
          ['t:1', 22n],
        ]),
      ),
    ).toEqual({ events: [c], behind: [] });
  });

  it('leaves out a partition whose position lies before its run: it is to be read again from there', () => {
    expect(
      eventsToAppend(
        batch,
        new Map([
          ['t:0', 9n],
          ['t:1', 20n],
        ]),
      ),
    ).toEqual({ events: [b, d], behind: [{ topic: 't', partition: 0 }] });
    expect(
      eventsToAppend(
        batch,
        new Map([
          ['t:0', 9n],
          ['t:1', 21n],
        ]),
      ),
    ).toEqual({ events: [d], behind: [{ topic: 't', partition: 0 }] });
  });

  it('refuses a partition without a position: the trees were not begun over it', () => {
    expect(() => eventsToAppend(batch, new Map([['t:0', 10n]]))).toThrow(
      new TreeGapError('partition 1 of t has no tree position'),
    );
  });
});
