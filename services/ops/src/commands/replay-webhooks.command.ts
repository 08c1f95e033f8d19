import type { Kafka, Producer } from 'kafkajs';
import type pg from 'pg';
import { generationTopicStates } from '@audit/shared/audit-topic';
import { type AuditEventRecord, type Codec, type Topics } from '@audit/shared/contract';
import { isLeftOut, purgeRepository } from '@audit/shared/retention';
import { jobHeaders, replayJob, replayRanges, tenantEvent, webhooksRepository } from '@audit/shared/webhooks';
import { readRanges } from '../adapters/topic-reader.js';
import type { ReplayWebhooksRequest } from '../domain/replay-request.js';
import { CliError } from './cli-error.js';

const SEND_CHUNK = 500;

export interface ReplayContext {
  kafka: Kafka;
  topics: Topics;
  pool: pg.Pool;
  producer: Pick<Producer, 'send'>;
  codec: Codec<AuditEventRecord>;
  now: () => number;
  deadlineMs: number;
  progress?: (read: number, total: number) => void;
}

/**
 * Re-drives the tenant's events ingested in [since, until) that match the endpoint's filter, to that endpoint,
 * through the normal delivery path: each becomes attempt 1 of a delivery in the first retry tier, due now, marked
 * as a replay (recorded apart), with the same payload bytes and event id as its first delivery; the dispatcher
 * signs it at attempt time and retries it on the normal schedule. Read from the audit topic, the source of truth,
 * leaving out what the tenant's retention purges removed (docs/retention.md "What a replay stores").
 */
export async function replayWebhooks(ctx: ReplayContext, r: ReplayWebhooksRequest) {
  const started = ctx.now();
  const endpoint = await webhooksRepository.find(ctx.pool, r.endpoint);
  if (!endpoint || endpoint.tenant_id !== r.tenant) {
    throw new CliError(`tenant ${r.tenant} has no endpoint ${r.endpoint}`);
  }
  if (!endpoint.active) {
    throw new CliError(
      `endpoint ${r.endpoint} is inactive and is never re-enabled: replay to its replacement`,
    );
  }
  const until = r.until ?? started;
  const admin = ctx.kafka.admin();
  await admin.connect();
  const ranges = [];
  try {
    // Every generation of the audit topic, oldest first: the window may span a growth (docs/topic-growth.md).
    for (const { topic } of await generationTopicStates(admin, ctx.topics.auditEvents.name))
      ranges.push(...(await replayRanges(admin, topic, r.since, until)));
  } finally {
    await admin.disconnect();
  }
  const records = await readRanges(ctx.kafka, ranges, { idleMs: ctx.deadlineMs, progress: ctx.progress });
  const now = ctx.now();
  const target = {
    endpointId: endpoint.id,
    tenantId: r.tenant,
    filter: endpoint.event_filter,
    patients: endpoint.patient_filter,
    since: r.since,
    until,
  };
  const purges = await purgeRepository(ctx.pool).history(r.tenant);
  const jobs = records.flatMap((record) => {
    const event = tenantEvent(ctx.codec, record, target);
    const job = replayJob(event && !isLeftOut(purges, event) ? event : null, record, target, now);
    return job ? [{ key: endpoint.id, value: job.body, headers: jobHeaders(job) }] : [];
  });
  if (!r['dry-run']) {
    for (let i = 0; i < jobs.length; i += SEND_CHUNK) {
      await ctx.producer.send({
        topic: ctx.topics.webhookRetries[0]!.name,
        messages: jobs.slice(i, i + SEND_CHUNK),
      });
    }
  }
  return {
    tenant: r.tenant,
    endpoint: r.endpoint,
    since: new Date(r.since).toISOString(),
    until: new Date(until).toISOString(),
    dry_run: r['dry-run'],
    records_read: records.length,
    events_replayed: jobs.length,
    event_ids: jobs.map((j) => j.headers['wh-event']),
    duration_ms: ctx.now() - started,
  };
}
