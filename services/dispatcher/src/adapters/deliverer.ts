import type { Producer } from 'kafkajs';
import { signWebhook, sleep, type Clock, type Logger } from '@audit/shared';
import { jobHeaders, type DeliveryJob } from '../domain/delivery-job.js';
import { afterFailure, type RetryPolicy } from '../domain/retry-schedule.js';
import type { DeliveryState } from './delivery-state.js';
import type { EndpointDirectory } from './endpoint-directory.js';
import { persistently } from './persistently.js';
import type { AttemptResult, DeliveryRequest } from './webhook.client.js';

export interface DelivererDeps {
  directory: Pick<EndpointDirectory, 'get' | 'forget'>;
  send: (request: DeliveryRequest) => Promise<AttemptResult>;
  state: DeliveryState;
  producer: Pick<Producer, 'send'>;
  retryTopics: readonly string[];
  deadLetterTopic: string;
  policy: RetryPolicy;
  clock: Clock;
  random: () => number;
  stopping: () => boolean;
  logger: Logger;
}

export type Outcome = 'delivered' | 'retry' | 'terminal' | 'dropped';

/**
 * One attempt of one job, and everything it implies: the attempt recorded, then on failure the hand-off to
 * the next retry tier (or the dead-letter topic and the failure count). It resolves only once all of that is
 * stored, so the record that carried the job is never committed before its consequences are safe.
 */
export function deliverer(deps: DelivererDeps) {
  const handOff = (topic: string, job: DeliveryJob, log: Logger) =>
    persistently(
      'retry hand-off',
      () =>
        deps.producer.send({
          topic,
          messages: [{ key: job.endpointId, value: job.body, headers: jobHeaders(job) }],
        }),
      deps.stopping,
      log,
    );

  return async function deliver(job: DeliveryJob): Promise<Outcome> {
    const log = deps.logger.child({
      endpoint_id: job.endpointId,
      event_id: job.eventId,
      attempt: job.attempt,
    });
    const endpoint = deps.directory.get(job.endpointId);
    // Disabled, deleted, or (never) another tenant's: pending work for it is dropped, not sent.
    if (!endpoint || endpoint.tenantId !== job.tenantId) return 'dropped';
    const early = job.dueAt - deps.clock();
    if (early > 0) await sleep(early);

    const attemptedAt = deps.clock();
    const signature = signWebhook(job.body, endpoint.secret, Math.floor(attemptedAt / 1000));
    const result = await deps.send({ url: endpoint.url, body: job.body, signature });
    const failedAt = deps.clock();
    const next = result.ok ? null : afterFailure(deps.policy, job.attempt, failedAt, deps.random());
    await persistently(
      'attempt record',
      () =>
        deps.state.recordAttempt({
          endpoint_id: job.endpointId,
          event_id: job.eventId,
          attempt: job.attempt,
          attempted_at: new Date(attemptedAt),
          succeeded: result.ok,
          terminal: next?.kind === 'terminal',
          status_code: result.status,
          error: result.ok ? null : result.error,
          latency_ms: Math.max(0, Math.round(result.latencyMs)),
          replay: job.replay,
        }),
      deps.stopping,
      log,
    );
    if (!next) return 'delivered';
    const lastError = result.ok ? null : result.error;
    if (next.kind === 'retry') {
      await handOff(
        deps.retryTopics[next.tier - 1]!,
        { ...job, attempt: job.attempt + 1, dueAt: next.dueAt, lastError },
        log,
      );
      return 'retry';
    }
    await handOff(deps.deadLetterTopic, { ...job, lastError }, log);
    const disabled = await persistently(
      'terminal failure',
      () => deps.state.terminalFailure(endpoint),
      deps.stopping,
      log,
    );
    if (disabled) {
      deps.directory.forget(endpoint.id);
      log.warn(
        { target: new URL(endpoint.url).origin },
        'endpoint disabled after consecutive terminal failures',
      );
    }
    return 'terminal';
  };
}

export type Deliver = ReturnType<typeof deliverer>;
