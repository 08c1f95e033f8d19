import {
  decodeAuditRecord,
  deliveryPayload,
  type AuditEventRecord,
  type Codec,
  type Logger,
} from '@audit/shared';
import type { ActiveEndpoint } from '../domain/endpoint-index.js';
import { startDelivery, type StartDeliveryDeps } from './start-delivery.js';
import type { MessageContext } from './tracked-consumer.js';

// A creation's row commits right after its event reached Kafka; a creation rolled back is given up on after this.
const CREATION_WAIT_MS = 10_000;

export interface DispatchDeps extends StartDeliveryDeps {
  codec: Codec<AuditEventRecord>;
  matching: (tenantId: string, action: string, writtenAt: number) => ActiveEndpoint[];
  /** Resolves once the endpoint whose creation event was read is known (or after the wait, if it never is). */
  created: (endpointId: string, timeoutMs: number) => Promise<void>;
  clock: () => number;
  logger: Logger;
}

/**
 * An audit event read: one delivery per matching active endpoint of its tenant, each started in the endpoint's
 * lane. A record that does not decode is the projector's to dead-letter; here it matches nothing.
 */
export function dispatchHandler(deps: DispatchDeps) {
  return async ({ topic, partition, message, begin }: MessageContext): Promise<boolean> => {
    const event = decodeAuditRecord(deps.codec, message.value);
    if (!event) {
      deps.logger.warn({ topic, partition, offset: message.offset }, 'undecodable audit record skipped');
      begin(0);
      return true;
    }
    // An endpoint's creation event comes before every event meant for it in its tenant's partition: hold the
    // partition until the endpoint is known, so an event written right after a 201 cannot miss it.
    if (event.action === 'admin.webhook.create' && event.resource_type === 'webhook_endpoint') {
      await deps.created(event.resource_id, CREATION_WAIT_MS);
    }
    const matches = deps.matching(event.tenant_id, event.action, event.ingested_at);
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
        replay: false,
        origin: { topic, partition, offset: message.offset },
        lastError: null,
      };
      startDelivery(deps, job, finish);
    }
    return true;
  };
}
