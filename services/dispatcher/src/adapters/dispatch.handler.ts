import type { AuditEventRecord, Codec, Logger } from '@audit/shared';
import { auditEventRecordSchema } from '@audit/shared';
import type { KeyedLanes } from '../domain/keyed-lanes.js';
import { deliveryPayload } from '../domain/delivery-payload.js';
import type { ActiveEndpoint } from '../domain/endpoint-index.js';
import type { Deliver } from './deliverer.js';
import type { MessageContext } from './tracked-consumer.js';

export interface DispatchDeps {
  codec: Codec<AuditEventRecord>;
  matching: (tenantId: string, action: string, writtenAt: number) => ActiveEndpoint[];
  lanes: KeyedLanes;
  deliver: Deliver;
  clock: () => number;
  logger: Logger;
}

function decode(deps: DispatchDeps, value: Buffer | null): AuditEventRecord | null {
  if (!value) return null;
  try {
    const parsed = auditEventRecordSchema.safeParse(deps.codec.decode(value));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * An audit event read: one delivery per matching active endpoint of its tenant, each started in the endpoint's
 * lane. A record that does not decode is the projector's to dead-letter; here it matches nothing.
 */
export function dispatchHandler(deps: DispatchDeps) {
  return async ({ topic, partition, message, begin }: MessageContext): Promise<boolean> => {
    const event = decode(deps, message.value);
    if (!event) {
      deps.logger.warn({ topic, partition, offset: message.offset }, 'undecodable audit record skipped');
      begin(0);
      return true;
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
      void deps.lanes.run(endpoint.id, async () => {
        await deps.deliver(job);
        finish();
      });
    }
    return true;
  };
}
