import type { Admin, Kafka } from 'kafkajs';
import { generationTopicStates } from '@audit/shared/audit-topic';
import { allTopics, type Topics } from '@audit/shared/contract';
import { READER_GROUP_PREFIX, readRanges, type PartitionRange } from '../adapters/topic-reader.js';
import { lagRows, type LagRow } from '../domain/consumer-lag.js';

export interface LagReport {
  at: string;
  partitions: (LagRow & { oldest_age_ms: number | null })[];
}

async function consumerGroups(admin: Admin): Promise<string[]> {
  const { groups } = await admin.listGroups();
  return groups
    .filter((g) => g.protocolType === 'consumer' || g.protocolType === '')
    .map((g) => g.groupId)
    .filter((id) => !id.startsWith(READER_GROUP_PREFIX))
    .sort();
}

/**
 * The record at each lagging group's position. A read takes one range per partition, so groups at different
 * positions on one partition (the projector and the dispatcher on the audit topic) are read in turns.
 */
async function oldestRecords(kafka: Kafka, rows: readonly LagRow[], deadlineMs: number) {
  const turns: PartitionRange[][] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    if (r.oldest === null || seen.has(`${r.topic}:${r.partition}:${r.oldest}`)) continue;
    seen.add(`${r.topic}:${r.partition}:${r.oldest}`);
    const range = {
      topic: r.topic,
      partition: r.partition,
      from: BigInt(r.oldest),
      to: BigInt(r.oldest) + 1n,
    };
    const turn = turns.find((t) => !t.some((o) => o.topic === r.topic && o.partition === r.partition));
    if (turn) turn.push(range);
    else turns.push([range]);
  }
  const records = [];
  for (const turn of turns) records.push(...(await readRanges(kafka, turn, { idleMs: deadlineMs })));
  return records;
}

/**
 * Per consumer group and partition of our topics: committed offset, end offset, lag, and the age of the oldest
 * record not yet processed (read from Kafka: the record at the committed offset).
 */
export async function lagCommand(
  kafka: Kafka,
  topicSet: Topics,
  opts: { now: () => number; deadlineMs: number },
): Promise<LagReport> {
  const admin = kafka.admin();
  await admin.connect();
  let rows: LagRow[];
  try {
    // Every generation of the audit topic a growth made, beside the topics of the set (docs/topic-growth.md).
    const grown = (await generationTopicStates(admin, topicSet.auditEvents.name))
      .filter((s) => s.generation > 1)
      .map((s) => s.topic);
    const names = [...allTopics(topicSet).map((t) => t.name), ...grown];
    const ends = await Promise.all(
      names.map(async (topic) => ({ topic, partitions: await admin.fetchTopicOffsets(topic) })),
    );
    const groups = await Promise.all(
      (await consumerGroups(admin)).map(async (groupId) => ({
        groupId,
        topics: await admin.fetchOffsets({ groupId, topics: names }),
      })),
    );
    rows = lagRows(groups, ends);
  } finally {
    await admin.disconnect();
  }
  const oldest = await oldestRecords(kafka, rows, opts.deadlineMs);
  const stamped = new Map(oldest.map((r) => [`${r.topic}:${r.partition}:${r.offset}`, r.timestamp]));
  const now = opts.now();
  return {
    at: new Date(now).toISOString(),
    partitions: rows.map((r) => {
      const ts = r.oldest === null ? undefined : stamped.get(`${r.topic}:${r.partition}:${r.oldest}`);
      return { ...r, oldest_age_ms: ts === undefined ? null : Math.max(0, now - ts) };
    }),
  };
}
