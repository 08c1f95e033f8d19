import { describe, expect, it } from 'vitest';
import { EVENTS_PARTITION_MS, MAX_PARTITIONS_PER_INSERT } from '@audit/shared/projection';
import { sampleRecord } from '@audit/shared/test-support';
import { partitionChunks } from './partition-chunks.js';

const at = (partition: number, offset = 0) =>
  sampleRecord({ timestamp: partition * EVENTS_PARTITION_MS + offset });
const partitions = (chunk: readonly { timestamp: number }[]) =>
  new Set(chunk.map((e) => Math.floor(e.timestamp / EVENTS_PARTITION_MS)));

describe('partitionChunks', () => {
  it('keeps a batch within the limit whole and in order', () => {
    const batch = [at(500, 2), at(401), at(499, 1), at(500, 1)];
    expect(partitionChunks(batch)).toEqual([batch]);
    expect(partitionChunks([])).toEqual([]);
  });

  it('splits a wider batch into chunks of at most the limit of partitions, every event once', () => {
    const batch = Array.from({ length: 600 }, (_, i) => at(((i * 7) % 250) + 100, i));
    const chunks = partitionChunks(batch);
    expect(chunks).toHaveLength(3);
    for (const chunk of chunks) expect(partitions(chunk).size).toBeLessThanOrEqual(MAX_PARTITIONS_PER_INSERT);
    expect(
      chunks
        .flat()
        .map((e) => e.event_id)
        .sort(),
    ).toEqual(batch.map((e) => e.event_id).sort());
  });
});
