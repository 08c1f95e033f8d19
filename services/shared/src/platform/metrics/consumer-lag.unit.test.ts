import { describe, expect, it } from 'vitest';
import { fetchConsumerLag, partitionLag, registerConsumerLag, type PartitionLag } from './consumer-lag.js';
import { Registry } from './metrics.registry.js';

describe('partitionLag', () => {
  it.each([
    ['committed inside the topic', { low: '0', high: '10' }, '7', 3],
    ['caught up', { low: '0', high: '10' }, '10', 0],
    ['never committed: every retained record', { low: '4', high: '10' }, '-1', 6],
    ['no entry for the partition', { low: '4', high: '10' }, undefined, 6],
    ['committed below what retention kept', { low: '8', high: '10' }, '2', 2],
    ['an empty topic', { low: '0', high: '0' }, '-1', 0],
  ])('%s', (_case, end, committed, lag) => {
    expect(partitionLag(end, committed)).toBe(lag);
  });
});

const admin = {
  fetchTopicOffsets: async (topic: string) =>
    [0, 1].map((partition) => ({
      partition,
      offset: '0',
      low: '0',
      high: topic === 'a' ? String(10 + partition) : '5',
    })),
  fetchOffsets: async ({ groupId }: { groupId: string; topics?: string[] }) =>
    groupId === 'g1'
      ? [{ topic: 'a', partitions: [{ partition: 0, offset: '10', metadata: null }] }]
      : [
          { topic: 'a', partitions: [] },
          { topic: 'b', partitions: [{ partition: 1, offset: '2', metadata: null }] },
        ],
};

describe('fetchConsumerLag', () => {
  it('lists every partition of every group topic', async () => {
    const rows = await fetchConsumerLag(admin, [
      { groupId: 'g1', topics: ['a'] },
      { groupId: 'g2', topics: ['a', 'b'] },
    ]);
    expect(rows).toEqual([
      { group: 'g1', topic: 'a', partition: 0, lag: 0 },
      { group: 'g1', topic: 'a', partition: 1, lag: 11 },
      { group: 'g2', topic: 'a', partition: 0, lag: 10 },
      { group: 'g2', topic: 'a', partition: 1, lag: 11 },
      { group: 'g2', topic: 'b', partition: 0, lag: 5 },
      { group: 'g2', topic: 'b', partition: 1, lag: 3 },
    ]);
  });
});

describe('kafka_consumer_lag', () => {
  it('shows the rows of the latest scrape only', async () => {
    const registry = new Registry();
    let rows: PartitionLag[] | null = [
      { group: 'g', topic: 't', partition: 0, lag: 4 },
      { group: 'g', topic: 't', partition: 1, lag: 0 },
    ];
    registerConsumerLag(registry, async () => rows);
    expect(await registry.metrics()).toContain('kafka_consumer_lag{group="g",topic="t",partition="0"} 4');
    rows = null;
    expect(await registry.metrics()).not.toContain('kafka_consumer_lag{');
  });
});
