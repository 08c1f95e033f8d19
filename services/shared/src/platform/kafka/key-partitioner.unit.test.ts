import { Partitioners, type PartitionerArgs } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { keyPartitioner } from './key-partitioner.js';

const metadata = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    partitionId: i,
    partitionErrorCode: 0,
    leader: 0,
    replicas: [0],
    isr: [0],
  }));
const args = (key: string | null, count = 6, topic = 't', partition?: number): PartitionerArgs => ({
  topic,
  partitionMetadata: metadata(count),
  message: { key, value: 'v', ...(partition === undefined ? {} : { partition }) },
});

describe('keyPartitioner', () => {
  it('puts every key where the default partitioner puts it, asked once or again, for any partition count', () => {
    const cached = keyPartitioner();
    const plain = Partitioners.DefaultPartitioner();
    for (const count of [6, 1, 12, 6]) {
      for (let i = 0; i < 200; i++) {
        const key = `tenant-${i % 50}`;
        expect(cached(args(key, count))).toBe(plain(args(key, count)));
      }
    }
  });

  it('keeps topics apart', () => {
    const cached = keyPartitioner();
    const plain = Partitioners.DefaultPartitioner();
    expect(cached(args('acme', 6, 'a'))).toBe(plain(args('acme', 6)));
    expect(cached(args('acme', 1, 'b'))).toBe(0);
    expect(cached(args('acme', 6, 'a'))).toBe(plain(args('acme', 6)));
  });

  it('leaves an explicit partition and keyless records to the default partitioner', () => {
    const cached = keyPartitioner();
    expect(cached(args('acme', 6, 't', 4))).toBe(4);
    const spread = new Set(Array.from({ length: 60 }, () => cached(args(null))));
    expect(spread.size).toBeGreaterThan(1);
  });
});
