import type pg from 'pg';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { inTransaction, withDeadline } from '@audit/shared/platform';
import {
  deliveryAttemptsRepository,
  webhooksRepository as repo,
  type AttemptKey,
  type DeliveryAttempt,
} from '@audit/shared/webhooks';
import { autoDisableEvent, type AutoDisableReason } from '../domain/auto-disable-event.js';
import { CoalescingWriter } from '../domain/coalescing-writer.js';
import type { ActiveEndpoint } from '../domain/endpoint-index.js';

// Attempts joined into one statement at most.
const MAX_ATTEMPTS_PER_WRITE = 1000;
// How long a finished attempt may wait for others to share its write. The request is over by then (its lane slot
// is free), so this delays only the bookkeeping after it; writes of about a hundred attempts instead of a few cut
// the dispatcher's CPU per delivery by about a fifth and Postgres's by almost half
// (docs/benchmarks/journal.md).
const ATTEMPT_LINGER_MS = 20;

/**
 * Postgres refused a value (SQLSTATE class 22, data exception, e.g. an event id from a retry record that is not a
 * UUID) or a constraint (class 23): one attempt's fault, not the database's state.
 */
const refusedValue = (err: unknown) => /^2[23]/.test(String((err as { code?: unknown } | null)?.code ?? ''));

export interface DeliveryStateOptions {
  pool: pg.Pool;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
  autoDisableAfter: number;
}

/** Delivery history and endpoint health in Postgres. */
export function deliveryState(opts: DeliveryStateOptions) {
  // One write in flight; attempts finished meanwhile, or within the linger, share the next one (a round trip per
  // attempt capped deliveries at a few hundred per second per endpoint, all updating the same endpoint row).
  const attempts = new CoalescingWriter<DeliveryAttempt, boolean>(
    (batch) => deliveryAttemptsRepository.record(opts.pool, batch),
    {
      maxBatch: MAX_ATTEMPTS_PER_WRITE,
      lingerMs: ATTEMPT_LINGER_MS,
      isolate: refusedValue,
    },
  );
  return {
    /**
     * Resolves once the attempt is stored: true, or false when there was nothing to store (its endpoint is gone,
     * or the attempt was recorded before); rejects if its write failed (the caller retries).
     */
    recordAttempt: (attempt: DeliveryAttempt) => attempts.add(attempt),

    /** Whether the terminal attempt's failure was counted already (by an earlier run of the same delivery). */
    settled: (key: AttemptKey) => deliveryAttemptsRepository.isSettled(opts.pool, key),

    /**
     * Counts the terminal attempt's failure, once however often it is called; at the threshold (or at once when
     * the receiver answered 410 Gone) the endpoint turns inactive in the same transaction that publishes
     * admin.webhook.auto_disable, so neither happens without the other. True when this call disabled it.
     */
    terminalFailure(
      endpoint: Pick<ActiveEndpoint, 'id' | 'tenantId' | 'url'>,
      key: AttemptKey,
      reason: AutoDisableReason,
    ): Promise<boolean> {
      return inTransaction(opts.pool, async (db) => {
        if (!(await deliveryAttemptsRepository.settle(db, key))) return false;
        const threshold = reason === 'gone' ? 1 : opts.autoDisableAfter;
        const result = await repo.addTerminalFailure(db, endpoint.id, threshold);
        if (!result?.disabledNow) return false;
        await repo.announce(db, endpoint.id, 'auto_disable');
        await withDeadline(
          opts.auditLog.publish([autoDisableEvent(endpoint, result.failures, reason)]),
          opts.auditTimeoutMs,
          () => new Error('Kafka did not take the auto-disable audit event in time'),
        );
        return true;
      });
    },
  };
}

export type DeliveryState = ReturnType<typeof deliveryState>;
