import type pg from 'pg';
import {
  inTransaction,
  webhooksRepository as repo,
  withDeadline,
  type AuditPublisher,
  type DeliveryAttempt,
} from '@audit/shared';
import { autoDisableEvent } from '../domain/auto-disable-event.js';
import type { ActiveEndpoint } from '../domain/endpoint-index.js';

export interface DeliveryStateOptions {
  pool: pg.Pool;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
  autoDisableAfter: number;
}

/** Delivery history and endpoint health in Postgres. */
export function deliveryState(opts: DeliveryStateOptions) {
  return {
    recordAttempt: (attempt: DeliveryAttempt) => repo.recordAttempt(opts.pool, attempt),

    /**
     * Counts a terminal failure; at the threshold the endpoint turns inactive in the same transaction that
     * publishes admin.webhook.auto_disable, so neither happens without the other. True when this call disabled it.
     */
    terminalFailure(endpoint: Pick<ActiveEndpoint, 'id' | 'tenantId' | 'url'>): Promise<boolean> {
      return inTransaction(opts.pool, async (db) => {
        const result = await repo.addTerminalFailure(db, endpoint.id, opts.autoDisableAfter);
        if (!result?.disabledNow) return false;
        await repo.announce(db, endpoint.id);
        await withDeadline(
          opts.auditLog.publish([autoDisableEvent(endpoint, result.failures)]),
          opts.auditTimeoutMs,
          () => new Error('Kafka did not take the auto-disable audit event in time'),
        );
        return true;
      });
    },
  };
}

export type DeliveryState = ReturnType<typeof deliveryState>;
