import { type TopicRecord } from '@audit/shared/platform';
import { jobFromRecord, jobHeaders } from '@audit/shared/webhooks';

export const DEAD_LETTER_QUEUES = ['projector', 'webhooks'] as const;
export type DeadLetterQueue = (typeof DEAD_LETTER_QUEUES)[number];

export type { TopicRecord };

export interface DeadLetterView {
  queue: DeadLetterQueue;
  partition: number;
  offset: string;
  failed_at: string;
  /** Where the record came from: the audit topic's record for both queues. */
  origin: { topic: string; partition: number; offset: string } | null;
  error: string | null;
  tenant_id: string | null;
  /** Projector: the step that refused it (decode, validate). */
  stage: string | null;
  /** Webhooks: whose delivery, which event, after how many attempts. */
  endpoint_id: string | null;
  event_id: string | null;
  attempts: number | null;
}

const originOf = (topic?: string, partition?: string, offset?: string) =>
  topic !== undefined && partition !== undefined && offset !== undefined
    ? { topic, partition: Number(partition), offset }
    : null;

/** What an operator needs to know of a dead letter, from the headers each queue writes. */
export function deadLetterView(queue: DeadLetterQueue, record: TopicRecord): DeadLetterView {
  const h = record.headers;
  const common = {
    queue,
    partition: record.partition,
    offset: record.offset,
    failed_at: new Date(record.timestamp).toISOString(),
  };
  if (queue === 'projector') {
    return {
      ...common,
      origin: originOf(h['dlq.origin.topic'], h['dlq.origin.partition'], h['dlq.origin.offset']),
      error: h['dlq.error'] ?? null,
      // Audit records are keyed by tenant.
      tenant_id: record.key?.toString('utf8') ?? null,
      stage: h['dlq.stage'] ?? null,
      endpoint_id: null,
      event_id: null,
      attempts: null,
    };
  }
  return {
    ...common,
    origin: originOf(h['wh-origin-topic'], h['wh-origin-partition'], h['wh-origin-offset']),
    error: h['wh-last-error'] ?? null,
    tenant_id: h['wh-tenant'] ?? null,
    stage: null,
    endpoint_id: h['wh-endpoint'] ?? null,
    event_id: h['wh-event'] ?? null,
    attempts: h['wh-attempt'] === undefined ? null : Number(h['wh-attempt']),
  };
}

export interface RedriveTopics {
  auditEvents: string;
  firstRetryTier: string;
}

export type Redrive =
  | { ok: true; topic: string; key: Buffer | string | null; value: Buffer; headers: Record<string, string> }
  | { ok: false; reason: string };

/**
 * The message that sends a dead letter back through the normal path. A projector record goes back to the audit
 * topic as it was first written (its own headers, not the dead-letter ones); the projector stores it once its
 * cause is fixed, and only once, being idempotent on the event id. A delivery goes to the first retry tier, due
 * now, as a new run of attempts recorded as a replay, to its endpoint or to `endpointId` (the replacement of an
 * endpoint that was disabled meanwhile: an inactive endpoint is never re-enabled).
 */
export function redriveMessage(
  queue: DeadLetterQueue,
  record: TopicRecord,
  topics: RedriveTopics,
  opts: { now: number; endpointId?: string },
): Redrive {
  const from = `${record.topic}:${record.partition}:${record.offset}`;
  if (queue === 'projector') {
    if (record.value === null) {
      const at = deadLetterView(queue, record).origin;
      const where = at ? ` it is still at ${at.topic}:${at.partition}:${at.offset}` : '';
      return { ok: false, reason: `its value was too large to keep in the dead-letter topic;${where}` };
    }
    const headers = Object.fromEntries(Object.entries(record.headers).filter(([k]) => !k.startsWith('dlq.')));
    return {
      ok: true,
      topic: topics.auditEvents,
      key: record.key,
      value: record.value,
      headers: { ...headers, 'redriven-from': from },
    };
  }
  const job = jobFromRecord(record.headers, record.value);
  if (!job) return { ok: false, reason: 'not a delivery record (headers missing or malformed)' };
  const endpointId = opts.endpointId ?? job.endpointId;
  return {
    ok: true,
    topic: topics.firstRetryTier,
    key: endpointId,
    value: job.body,
    headers: {
      ...jobHeaders({ ...job, endpointId, attempt: 1, dueAt: opts.now, replay: true }),
      'redriven-from': from,
    },
  };
}
