import { decodeAuditRecord, type AuditEventRecord, type Codec } from '@audit/shared/contract';
import { type Logger } from '@audit/shared/platform';
import type { RetentionFilter } from '@audit/shared/retention';
import { deliveryPayload } from '@audit/shared/webhooks';
import type { ActiveEndpoint, MatchedEvent } from '../domain/endpoint-index.js';
import { persistently, StoppingError } from './persistently.js';
import { startDelivery, type StartDeliveryDeps } from './start-delivery.js';
import type { MessageContext } from './tracked-consumer.js';

// A change's row commits right after its event reached Kafka; a change rolled back is given up on after this.
const CHANGE_WAIT_MS = 10_000;
// The endpoint changes after which a tenant's later events must see the endpoint as changed (docs/webhooks.md
// "Delivery"): its creation, a new secret (which deliveries from then on are signed with), and an update (its
// URL, filters and rate from then on).
const ORDERED_CHANGES = new Set([
  'admin.webhook.create',
  'admin.webhook.rotate_secret',
  'admin.webhook.update',
]);

/** The endpoint version a change event names; creations written before versions existed are version 1. */
export function changedVersion(details: string): number {
  try {
    const version = (JSON.parse(details) as { endpoint_version?: unknown }).endpoint_version;
    return Number.isSafeInteger(version) && (version as number) >= 1 ? (version as number) : 1;
  } catch {
    return 1;
  }
}

export interface DispatchDeps extends StartDeliveryDeps {
  codec: Codec<AuditEventRecord>;
  /** The active endpoints the event goes to: its tenant's, whose filters match it. */
  matching: (event: MatchedEvent) => ActiveEndpoint[];
  /** Resolves once the endpoint is known at that version (or after the wait, if it never is). */
  changed: (endpointId: string, version: number, timeoutMs: number) => Promise<void>;
  /** Leaves out the events a retention purge removed: they are delivered no more than stored. */
  retained: RetentionFilter;
  stopping: () => boolean;
  clock: () => number;
  logger: Logger;
}

/**
 * An audit event read: one delivery per matching active endpoint of its tenant, each started in the endpoint's
 * lane. A record that does not decode is the projector's to dead-letter; here it matches nothing, as does an event
 * its tenant's retention purges removed (docs/retention.md "What a replay stores"), which the trail does not keep.
 */
export function dispatchHandler(deps: DispatchDeps) {
  return async ({ topic, partition, message, begin }: MessageContext): Promise<boolean> => {
    const event = decodeAuditRecord(deps.codec, message.value);
    if (!event) {
      deps.logger.warn({ topic, partition, offset: message.offset }, 'undecodable audit record skipped');
      begin(0);
      return true;
    }
    // An endpoint's creation (or rotation) event comes before every event meant for it as created (or signed
    // with the new secret) in its tenant's partition: hold the partition until the endpoint is known so, and an
    // event written right after the answer cannot miss it.
    if (ORDERED_CHANGES.has(event.action) && event.resource_type === 'webhook_endpoint') {
      await deps.changed(event.resource_id, changedVersion(event.details), CHANGE_WAIT_MS);
    }
    // Until the purges can be read: delivering without them could send what a purge removed. Stopping, the
    // record is left for the next reader.
    const kept = await persistently(
      'reading the retention purges',
      () => deps.retained([event]),
      deps.stopping,
      () => deps.logger,
    ).catch((err: unknown) => {
      if (err instanceof StoppingError) return null;
      throw err;
    });
    if (kept === null) return false;
    const matches = kept.length === 0 ? [] : deps.matching(event);
    const finish = begin(matches.length);
    if (matches.length === 0) return true;
    const body = deliveryPayload(event);
    const now = deps.clock();
    for (const endpoint of matches) {
      const job = {
        endpointId: endpoint.id,
        tenantId: event.tenant_id,
        eventId: event.event_id,
        body,
        attempt: 1,
        dueAt: now,
        notBefore: null,
        replay: false,
        origin: { topic, partition, offset: message.offset },
        lastError: null,
      };
      startDelivery(deps, job, finish);
    }
    return true;
  };
}
