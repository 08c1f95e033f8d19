import type { Admin } from 'kafkajs';
import type { AuditEventRecord } from '../contract/audit-event/audit-event.js';
import { decodeAuditRecord } from '../contract/audit-event/decode-record.js';
import type { Codec } from '../contract/codec/single-object.codec.js';
import type { PartitionRange, TopicRecord } from '../platform/kafka/range-reader.js';
import type { DeliveryJob } from './delivery-job.js';
import { deliveryPayload } from './delivery-payload.js';
import { matchesEndpoint, type EndpointFilters } from './event-filter.js';

// A record reaches Kafka at most this long after ingest stamped it (the ingest publish timeout, with room).
const PUBLISH_SLACK_MS = 60_000;

/**
 * What a replay sends again: an endpoint's events ingested in [since, until) that its filters match, as the live
 * deliveries match them (docs/webhooks.md "Replays").
 */
export interface ReplayTarget extends EndpointFilters {
  endpointId: string;
  tenantId: string;
  since: number;
  until: number;
}

/**
 * Where the audit topic holds every record ingested in [since, until): by record timestamp, from `since` to
 * `until` and the publish slack, in the partitions asked for (all when none are named). kafkajs answers the end
 * offset where no record is as late.
 */
export async function replayRanges(
  admin: Pick<Admin, 'fetchTopicOffsetsByTimestamp'>,
  topic: string,
  since: number,
  until: number,
  partitions?: readonly number[],
): Promise<PartitionRange[]> {
  const [from, to] = await Promise.all([
    admin.fetchTopicOffsetsByTimestamp(topic, since),
    admin.fetchTopicOffsetsByTimestamp(topic, until + PUBLISH_SLACK_MS),
  ]);
  return from
    .filter((p) => !partitions || partitions.includes(p.partition))
    .map((p) => ({
      topic,
      partition: p.partition,
      from: BigInt(p.offset),
      to: BigInt(to.find((e) => e.partition === p.partition)?.offset ?? p.offset),
    }));
}

/** The audit event a record of the audit topic holds if it is the target tenant's, or null. */
export function tenantEvent(
  codec: Codec<AuditEventRecord>,
  record: TopicRecord,
  target: Pick<ReplayTarget, 'tenantId'>,
): AuditEventRecord | null {
  const event = decodeAuditRecord(codec, record.value);
  return event?.tenant_id === target.tenantId ? event : null;
}

/**
 * The delivery a replay makes of one of the tenant's events (`tenantEvent`), or null when there is none (no
 * event, outside the window, not matching the filters): attempt 1, due at `now`, marked as a replay, with the same
 * payload bytes and event id as its first delivery, through the normal retry path.
 */
export function replayJob(
  event: AuditEventRecord | null,
  record: TopicRecord,
  target: ReplayTarget,
  now: number,
): DeliveryJob | null {
  if (
    !event ||
    event.ingested_at < target.since ||
    event.ingested_at >= target.until ||
    !matchesEndpoint(target, event)
  ) {
    return null;
  }
  return {
    endpointId: target.endpointId,
    tenantId: event.tenant_id,
    eventId: event.event_id,
    body: deliveryPayload(event),
    attempt: 1,
    dueAt: now,
    notBefore: null,
    replay: true,
    origin: { topic: record.topic, partition: record.partition, offset: record.offset },
    lastError: null,
  };
}
