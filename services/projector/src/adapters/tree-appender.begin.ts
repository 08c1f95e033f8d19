import type { Admin } from 'kafkajs';
import type pg from 'pg';
import type { AuditGenerations } from '@audit/shared/audit-topic';
import type { ServiceHost } from '@audit/shared/host';
import { guardPartitionCount, PartitionCountChangedError } from './partition-guard.js';
import { treeMetrics } from './projector.metrics.js';
import { beginTreePositions } from './tree-positions.begin.js';
import { treePositions } from './tree-positions.repository.js';
import { treeAppender } from './tree.appender.js';

export interface TreesStart {
  pool: pg.Pool;
  admin: Admin;
  generations: AuditGenerations;
  /** The live projection's group, whose progress the trees follow. */
  groupId: string;
  /** Where the notary of before migration 0021 had appended the trees up to (config.ts). */
  notaryGroupId: string;
}

/**
 * The trees' appender. Each generation of the audit topic is begun at start, and one grown later when its first
 * batch comes: its partition count recorded, or checked against the one recorded, and its partitions given their
 * first positions.
 * A count that is not the recorded one, or a topic whose records a tree still needs are gone, stops the process,
 * since no retry makes it right and an operator must (docs/operations.md "Integrity").
 */
export async function treeAppenderOf(host: ServiceHost, start: TreesStart) {
  const { pool, admin, generations } = start;
  const giveUp = (err: Error): never => host.fatal(err, 'the trees cannot go on; stopping');
  const begin = async (topic: string) => {
    if (generations.generationOf(topic) === null) return undefined;
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    const partitions = await guardPartitionCount(pool, topic, metadata.topics[0]!.partitions.length).catch(
      (err: unknown) => {
        // Another count is for an operator; anything else (Postgres not answering) is retried.
        throw err instanceof PartitionCountChangedError ? giveUp(err) : err;
      },
    );
    await beginTreePositions(admin, treePositions(pool, topic), topic, partitions, start.notaryGroupId);
    return partitions;
  };
  // The generations known at start are begun before anything is read: a changed count stops the process now.
  for (const topic of generations.topics()) await host.step('postgres', () => begin(topic));
  return treeAppender({
    pool,
    admin,
    begin,
    groupId: start.groupId,
    meter: treeMetrics(host.metrics),
    fatal: giveUp,
    stopping: host.stopping,
    logger: host.logger,
  });
}
