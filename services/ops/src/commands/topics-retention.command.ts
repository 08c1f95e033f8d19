import type { Admin, Kafka } from 'kafkajs';
import {
  generationTopicStates,
  retentionConfig,
  setTopicConfig,
  topicRetentionMs,
} from '@audit/shared/audit-topic';
import { allTopics, type Topics } from '@audit/shared/contract';
import { kafkaSettled } from '@audit/shared/platform';
import { CliError } from './cli-error.js';
import { lagCommand } from './lag.command.js';

const DAY_MS = 86_400_000;

export interface TopicRetentionContext {
  kafka: Kafka;
  admin: Admin;
  topics: Topics;
  now: () => number;
  /** How long reading the oldest unread records may take (as `ops lag`). */
  readDeadlineMs: number;
}

export interface TopicRetentionRow {
  topic: string;
  /** Days a record is kept; null: for ever. */
  retention_days: number | null;
  /** Whether `ops topics retention` sets it: the audit topic's generations and the dead-letter topics. */
  set_here: boolean;
}

/** The topics whose retention the operator chooses: every copy of the audit events we keep in Kafka. */
async function chosenTopics(admin: Admin, topics: Topics): Promise<string[]> {
  const generations = await generationTopicStates(admin, topics.auditEvents.name);
  return [...generations.map((g) => g.topic), topics.projectorDeadLetter.name, topics.webhookDeadLetter.name];
}

/**
 * Records a shorter retention would delete before a consumer group read them: an unread record older than a day
 * less than the retention (a stopped consumer, a long lag), or one whose age could not be read. `ops lag` finds
 * them, for every group.
 */
async function unreadPastRetention(ctx: TopicRetentionContext, chosen: readonly string[], days: number) {
  const lag = await lagCommand(ctx.kafka, ctx.topics, { now: ctx.now, deadlineMs: ctx.readDeadlineMs });
  return lag.partitions.filter(
    (p) =>
      chosen.includes(p.topic) &&
      p.lag > 0 &&
      (p.oldest_age_ms === null || p.oldest_age_ms > (days - 1) * DAY_MS),
  );
}

/**
 * Shows the retention of the deployment's topics, or sets that of the audit topic (every generation) and the
 * dead-letter topics to `days`, or for ever (null) (docs/operations.md "Topic retention"). A shorter retention
 * is refused while a consumer group has not read records it would delete.
 */
export async function topicRetention(
  ctx: TopicRetentionContext,
  days: number | null | undefined,
): Promise<{ topics: TopicRetentionRow[] }> {
  const chosen = await kafkaSettled(() => chosenTopics(ctx.admin, ctx.topics));
  if (days !== undefined) {
    if (days !== null) {
      const unread = await unreadPastRetention(ctx, chosen, days);
      if (unread.length > 0)
        throw new CliError(
          `a retention of ${days} days would delete records not read yet:\n  ` +
            unread
              .map(
                (p) =>
                  `${p.group} on ${p.topic} partition ${p.partition}: oldest unread ` +
                  (p.oldest_age_ms === null
                    ? 'of an age that could not be read'
                    : `${Math.floor(p.oldest_age_ms / DAY_MS)} days old`),
              )
              .join('\n  ') +
            '\nlet the consumers catch up (ops lag), or choose a longer retention',
          2,
        );
    }
    for (const topic of chosen) {
      await kafkaSettled(() => setTopicConfig(ctx.admin, topic, retentionConfig(days)));
    }
  }
  const fixed = allTopics(ctx.topics)
    .map((t) => t.name)
    .filter((t) => !chosen.includes(t));
  const rows: TopicRetentionRow[] = [];
  for (const topic of [...chosen, ...fixed]) {
    const ms = await kafkaSettled(() => topicRetentionMs(ctx.admin, topic));
    rows.push({ topic, retention_days: ms === null ? null : ms / DAY_MS, set_here: chosen.includes(topic) });
  }
  return { topics: rows };
}
