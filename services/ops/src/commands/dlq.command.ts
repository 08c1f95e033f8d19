import type { Kafka, Producer } from 'kafkajs';
import type pg from 'pg';
import { type Codec, type AuditEventRecord, type Topics } from '@audit/shared/contract';
import { type TopicRoute } from '@audit/shared/platform';
import { webhooksRepository } from '@audit/shared/webhooks';
import { placeKey, redrivesRepository } from '../adapters/redrives.repository.js';
import { readRanges } from '../adapters/topic-reader.js';
import {
  deadLetterView,
  redriveMessage,
  type DeadLetterQueue,
  type DeadLetterView,
  type TopicRecord,
} from '../domain/dead-letter.js';
import { CliError } from './cli-error.js';

export interface DlqContext {
  kafka: Kafka;
  topics: Topics;
  /** The audit topic's writable generation, where a projector dead letter goes back to. */
  auditTopic: Pick<TopicRoute, 'current'>;
  pool: pg.Pool;
  producer: Pick<Producer, 'send'>;
  codec: Codec<AuditEventRecord>;
  operator: string;
  now: () => number;
  deadlineMs: number;
  progress?: (read: number, total: number) => void;
}

export interface DlqFilter {
  tenant?: string;
  endpoint?: string;
  partition?: number;
  offset?: string;
}

export type ListedDeadLetter = DeadLetterView & { redriven_at: string | null };

const topicOf = (ctx: Pick<DlqContext, 'topics'>, queue: DeadLetterQueue) =>
  queue === 'projector' ? ctx.topics.projectorDeadLetter.name : ctx.topics.webhookDeadLetter.name;

/** Every record the dead-letter topic still keeps, with whether and when it was redriven. */
async function readQueue(ctx: DlqContext, queue: DeadLetterQueue) {
  const topic = topicOf(ctx, queue);
  const admin = ctx.kafka.admin();
  await admin.connect();
  let offsets;
  try {
    offsets = await admin.fetchTopicOffsets(topic);
  } finally {
    await admin.disconnect();
  }
  const ranges = offsets.map((p) => ({
    topic,
    partition: p.partition,
    from: BigInt(p.low),
    to: BigInt(p.high),
  }));
  const [records, redriven] = await Promise.all([
    readRanges(ctx.kafka, ranges, { idleMs: ctx.deadlineMs, progress: ctx.progress }),
    redrivesRepository.redrivenAt(ctx.pool, topic),
  ]);
  return records.map((record) => {
    const at = redriven.get(placeKey(topic, record.partition, record.offset));
    return { record, view: { ...deadLetterView(queue, record), redriven_at: at?.toISOString() ?? null } };
  });
}

const matches = (view: ListedDeadLetter, f: DlqFilter) =>
  (f.tenant === undefined || view.tenant_id === f.tenant) &&
  (f.endpoint === undefined || view.endpoint_id === f.endpoint) &&
  (f.partition === undefined || view.partition === f.partition) &&
  (f.offset === undefined || view.offset === f.offset);

export async function dlqList(
  ctx: DlqContext,
  queue: DeadLetterQueue,
  opts: DlqFilter & { all: boolean; limit: number },
) {
  const all = await readQueue(ctx, queue);
  const pending = all.filter((r) => r.view.redriven_at === null);
  const shown = (opts.all ? all : pending).filter((r) => matches(r.view, opts));
  return {
    queue,
    topic: topicOf(ctx, queue),
    kept: all.length,
    pending: pending.length,
    matching: shown.length,
    records: shown.slice(0, opts.limit).map((r) => r.view),
  };
}

/** A projector dead letter's value decoded, when the codec of this version can (a fixed cause shows here first). */
function decoded(ctx: DlqContext, queue: DeadLetterQueue, record: TopicRecord) {
  if (!record.value) return null;
  if (queue === 'webhooks') return JSON.parse(record.value.toString('utf8')) as unknown;
  try {
    return ctx.codec.decode(record.value);
  } catch (err) {
    return { undecodable: (err as Error).message };
  }
}

export async function dlqShow(
  ctx: DlqContext,
  queue: DeadLetterQueue,
  at: { partition: number; offset: string },
) {
  const found = (await readQueue(ctx, queue)).find(
    (r) => r.record.partition === at.partition && r.record.offset === at.offset,
  );
  if (!found) throw new CliError(`no dead letter at ${topicOf(ctx, queue)}:${at.partition}:${at.offset}`);
  const { record, view } = found;
  return {
    ...view,
    headers: record.headers,
    key: record.key?.toString('utf8') ?? null,
    value_bytes: record.value?.length ?? 0,
    value_base64: record.value?.toString('base64') ?? null,
    value: decoded(ctx, queue, record),
  };
}

const SEND_CHUNK = 500;

/** Why a delivery cannot go to its endpoint (or to the one asked for), or null when it can. */
async function endpointRefusal(
  ctx: DlqContext,
  view: DeadLetterView,
  target: string,
  replacing: boolean,
): Promise<string | null> {
  const endpoint = await webhooksRepository.find(ctx.pool, target);
  if (!endpoint) return `endpoint ${target} does not exist (deleted?)`;
  if (endpoint.tenant_id !== view.tenant_id) return `endpoint ${target} belongs to another tenant`;
  if (endpoint.active) return null;
  return replacing
    ? `endpoint ${target} is inactive`
    : `endpoint ${target} is inactive and is never re-enabled: redrive to its replacement with --endpoint ${target} --to <id>`;
}

/**
 * Sends pending dead letters (those matching the filter) back through the normal path, then notes them as
 * redriven. A crash between the two redrives them again on the next run: the projector stores an event once, a
 * receiver gets the same delivery id twice (at least once, as always).
 */
export async function dlqRedrive(
  ctx: DlqContext,
  queue: DeadLetterQueue,
  opts: DlqFilter & { to?: string; limit: number; dryRun: boolean },
) {
  const pending = (await readQueue(ctx, queue)).filter(
    (r) => r.view.redriven_at === null && matches(r.view, opts),
  );
  const chosen = pending.slice(0, opts.limit);
  const redrivenTopics = {
    auditEvents: ctx.auditTopic.current(),
    firstRetryTier: ctx.topics.webhookRetries[0]!.name,
  };
  const refusals = new Map<string, string | null>();
  const sends: {
    record: TopicRecord;
    view: DeadLetterView;
    message: Extract<ReturnType<typeof redriveMessage>, { ok: true }>;
  }[] = [];
  const skipped: { partition: number; offset: string; reason: string }[] = [];
  const now = ctx.now();
  for (const { record, view } of chosen) {
    if (queue === 'webhooks') {
      const target = opts.to ?? view.endpoint_id ?? '';
      const key = `${target}\u0000${view.tenant_id}`;
      if (!refusals.has(key))
        refusals.set(key, await endpointRefusal(ctx, view, target, opts.to !== undefined));
      const refusal = refusals.get(key);
      if (refusal) {
        skipped.push({ partition: view.partition, offset: view.offset, reason: refusal });
        continue;
      }
    }
    const message = redriveMessage(queue, record, redrivenTopics, { now, endpointId: opts.to });
    if (message.ok) sends.push({ record, view, message });
    else skipped.push({ partition: view.partition, offset: view.offset, reason: message.reason });
  }
  if (!opts.dryRun) {
    for (let i = 0; i < sends.length; i += SEND_CHUNK) {
      const chunk = sends.slice(i, i + SEND_CHUNK);
      await ctx.producer.send({
        topic: chunk[0]!.message.topic,
        messages: chunk.map(({ message }) => ({
          key: message.key,
          value: message.value,
          headers: message.headers,
        })),
      });
      await redrivesRepository.note(
        ctx.pool,
        chunk.map(({ record, message }) => ({
          topic: record.topic,
          partition: record.partition,
          offset: record.offset,
          redrivenBy: ctx.operator,
          sentTo: message.topic,
          endpointId: queue === 'webhooks' ? (typeof message.key === 'string' ? message.key : null) : null,
        })),
      );
      ctx.progress?.(Math.min(i + SEND_CHUNK, sends.length), sends.length);
    }
  }
  return {
    queue,
    dry_run: opts.dryRun,
    matching: pending.length,
    redriven: sends.map(({ view, message }) => ({
      partition: view.partition,
      offset: view.offset,
      sent_to: message.topic,
      endpoint_id: queue === 'webhooks' ? message.key : null,
      event_id: view.event_id,
    })),
    skipped,
  };
}
