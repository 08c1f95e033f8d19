import type { Admin } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@audit/shared/platform';
import { startNewGroupAtEnd } from './group-start.js';

const [g1, g2] = ['audit.events.v1', 'audit.events.v1.g2'];

/** A broker where each topic has two partitions ending at 7, and the group's commits as given. */
function broker(committed: Record<string, string[]>) {
  const set: { topic: string; partitions: { partition: number; offset: string }[] }[] = [];
  const admin = {
    fetchOffsets: async ({ topics }: { topics: string[] }) =>
      topics.map((topic) => ({
        topic,
        partitions: (committed[topic] ?? ['-1', '-1']).map((offset, partition) => ({ partition, offset })),
      })),
    fetchTopicOffsets: async () =>
      [0, 1].map((partition) => ({ partition, offset: '7', high: '7', low: '0' })),
    setOffsets: async (request: (typeof set)[number] & { groupId: string }) => {
      set.push({ topic: request.topic, partitions: request.partitions });
    },
  };
  return { admin: admin as unknown as Admin, set };
}

const log = createLogger('test', 'silent');

describe('startNewGroupAtEnd', () => {
  it('starts a group that never committed at the end of every generation', async () => {
    const { admin, set } = broker({});
    await startNewGroupAtEnd(admin, 'group', [g1, g2], log);
    expect(set.map((s) => s.topic)).toEqual([g1, g2]);
    expect(set[1]!.partitions).toEqual([
      { partition: 0, offset: '7' },
      { partition: 1, offset: '7' },
    ]);
  });

  it("leaves a later generation of a group that has read to its beginning, and ends the first one's unset partitions", async () => {
    const { admin, set } = broker({ [g1]: ['3', '-1'] });
    await startNewGroupAtEnd(admin, 'group', [g1, g2], log);
    expect(set).toEqual([{ topic: g1, partitions: [{ partition: 1, offset: '7' }] }]);
  });
});
