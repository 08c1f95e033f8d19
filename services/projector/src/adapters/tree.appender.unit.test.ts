import type { Admin } from 'kafkajs';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@audit/shared/platform';
import { PartitionCountChangedError } from './partition-guard.js';
import { treeAppender } from './tree.appender.js';

describe('treeAppender', () => {
  it('stops the process at a batch from a partition the trees were not begun over, before reading a position', async () => {
    // Neither store is reached: the partition is checked against the count its generation was begun with first.
    const unreachable = new Proxy({}, { get: () => () => Promise.reject(new Error('reached a store')) });
    const appender = treeAppender({
      pool: unreachable as pg.Pool,
      admin: unreachable as Pick<Admin, 'fetchTopicOffsets' | 'fetchOffsets'>,
      begin: async (topic) =>
        new Map([
          ['audit-events', 6],
          ['audit-events.g2', 12],
        ]).get(topic),
      groupId: 'projector',
      meter: { appended: () => undefined },
      fatal: (err) => {
        throw err;
      },
      stopping: () => false,
      logger: createLogger('test', 'silent'),
    });
    await expect(appender.rewindTo('audit-events', 6, '0')).rejects.toThrow(PartitionCountChangedError);
    await expect(appender.rewindTo('audit-events', 6, '0')).rejects.toThrow(
      /audit topic audit-events has 7 partitions, its trees were begun over 6/,
    );
    await expect(appender.rewindTo('audit-events.g2', 12, '0')).rejects.toThrow(PartitionCountChangedError);
    await expect(appender.rewindTo('audit-events.g3', 0, '0')).rejects.toThrow(
      /audit-events.g3 is no generation of the audit topic/,
    );
  });
});
