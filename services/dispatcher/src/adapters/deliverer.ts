import type { Producer } from 'kafkajs';
import { type Clock } from '@audit/shared/contract';
import { sleep, type Logger } from '@audit/shared/platform';
import {
  jobHeaders,
  liveSecrets,
  signatureHeaders,
  type AttemptResult,
  type DeliveryJob,
  type DeliveryRequest,
} from '@audit/shared/webhooks';
import { slotIntervalMs } from '../domain/rate-limit.js';
import { afterFailure, hop, type RetryPolicy } from '../domain/retry-schedule.js';
import type { DeliveryState } from './delivery-state.js';
import type { EndpointDirectory } from './endpoint-directory.js';
import { persistently } from './persistently.js';

/** What the deliverer's effects are counted by (metrics). */
export interface DeliveryMeter {
  /** One request to an endpoint, made and over (or never made: refused target, DNS failure). */
  attempted(result: AttemptResult): void;
  deadLettered(): void;
  autoDisabled(): void;
}

export interface DelivererDeps {
  directory: Pick<EndpointDirectory, 'get' | 'forget'>;
  /**
   * A rate-limited endpoint's attempt slots (rate-slots.repository.ts): `take` the next one (the ms until it
   * begins), then `pass` its gate when it comes (the ms still to wait).
   */
  slots: {
    take: (endpointId: string, intervalMs: number) => Promise<number>;
    pass: (endpointId: string, intervalMs: number) => Promise<number>;
  };
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
  meter: DeliveryMeter;
}

export type Outcome = 'delivered' | 'retry' | 'terminal' | 'dropped';

const handOffWith =
  (deps: Pick<DelivererDeps, 'producer' | 'stopping'>) =>
  (topic: string, job: DeliveryJob, log: () => Logger) =>
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

/**
 * A job an endpoint's full lane cannot take now: it waits in the first retry tier instead of in memory, with the
 * same attempt number, so a dead endpoint's backlog neither grows without bound nor holds up other endpoints.
 */
export function deferrer(
  deps: Pick<DelivererDeps, 'producer' | 'stopping' | 'retryTopics' | 'policy' | 'clock' | 'logger'>,
) {
  const handOff = handOffWith(deps);
  return (job: DeliveryJob) =>
    handOff(
      deps.retryTopics[0]!,
      {
        ...job,
        dueAt: deps.clock() + deps.policy.delaysMs[0]!,
        lastError: job.lastError ?? 'deferred: endpoint backlog',
      },
      () => deps.logger,
    );
}

/**
 * The job's endpoint as the directory has it now; undefined once it is disabled or deleted (or, never, when it is
 * another tenant's): pending work for it is dropped, not sent.
 */
function activeEndpoint(
  directory: DelivererDeps['directory'],
  job: Pick<DeliveryJob, 'endpointId' | 'tenantId'>,
) {
  const found = directory.get(job.endpointId);
  return found?.tenantId === job.tenantId ? found : undefined;
}

/**
 * A retry held back by the receiver's Retry-After, come out of its tier before the time it asked for: it goes
 * on to its next hop (retry-schedule.ts `hop`), unattempted, as the same attempt.
 */
export function hopper(
  deps: Pick<
    DelivererDeps,
    'directory' | 'producer' | 'stopping' | 'retryTopics' | 'policy' | 'clock' | 'logger'
  >,
) {
  const handOff = handOffWith(deps);
  return async (job: DeliveryJob & { notBefore: number }) => {
    // An endpoint gone meanwhile: its held-back retry is dropped, not carried on.
    if (!activeEndpoint(deps.directory, job)) return;
    const next = hop(deps.policy, job.notBefore, deps.clock());
    return handOff(deps.retryTopics[next.tier - 1]!, { ...job, dueAt: next.dueAt }, () => deps.logger);
  };
}

/**
 * One attempt of one job, and everything it implies: the attempt recorded, then on failure the hand-off to
 * the next retry tier (or the dead-letter topic and the failure count). It resolves only once all of that is
 * stored, so the record that carried the job is never committed before its consequences are safe.
 * `attempted` is called as soon as the request is over (or was never made), before any of that is stored: the
 * caller's per-endpoint lane limits requests on the wire, not bookkeeping.
 */
export function deliverer(deps: DelivererDeps) {
  const handOff = handOffWith(deps);

  return async function deliver(job: DeliveryJob, attempted: () => void = () => undefined): Promise<Outcome> {
    // Made only when something is logged: a child logger per delivery showed in the profile (bench:webhooks).
    let child: Logger | undefined;
    const log = () =>
      (child ??= deps.logger.child({
        endpoint_id: job.endpointId,
        event_id: job.eventId,
        attempt: job.attempt,
      }));
    const limited = activeEndpoint(deps.directory, job);
    if (!limited) return 'dropped';
    const early = job.dueAt - deps.clock();
    if (early > 0) await sleep(early);
    // A rate-limited endpoint: wait for this attempt's slot, which every dispatcher process takes from the same
    // place, so that together they never exceed the endpoint's rate.
    if (limited.ratePerSecond !== null) {
      const perSecond = limited.ratePerSecond;
      const interval = slotIntervalMs(perSecond);
      const wait = await persistently(
        'rate slot',
        () => deps.slots.take(limited.id, interval),
        deps.stopping,
        log,
      );
      if (wait > 0) await sleep(wait);
      // Woken for the slot, perhaps late: the gate keeps this attempt an interval after the one before it.
      const more = await persistently(
        'rate gate',
        () => deps.slots.pass(limited.id, interval),
        deps.stopping,
        log,
      );
      if (more > 0) await sleep(more);
    }
    // As the endpoint is now, after the waits: a new URL, secret or limit applies; one gone meanwhile gets nothing.
    const endpoint = activeEndpoint(deps.directory, job);
    if (!endpoint) return 'dropped';

    const attemptedAt = deps.clock();
    const secrets = liveSecrets(endpoint, attemptedAt);
    const headers = signatureHeaders(job.eventId, job.body, secrets, Math.floor(attemptedAt / 1000));
    const result = await deps.send({ endpointId: endpoint.id, url: endpoint.url, body: job.body, headers });
    attempted();
    deps.meter.attempted(result);
    const failedAt = deps.clock();
    // 410 Gone: the receiver says the endpoint is no more; no retry, and the endpoint is disabled below.
    const gone = !result.ok && result.status === 410;
    const next = result.ok
      ? null
      : gone
        ? ({ kind: 'terminal' } as const)
        : afterFailure(deps.policy, job.attempt, failedAt, deps.random(), result.retryAfterMs ?? null);
    const stored = await persistently(
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
          next_attempt_at: next?.kind === 'retry' ? new Date(next.notBefore ?? next.dueAt) : null,
        }),
      deps.stopping,
      log,
    );
    if (!next) return 'delivered';
    const lastError = result.ok ? null : result.error;
    if (next.kind === 'retry') {
      await handOff(
        deps.retryTopics[next.tier - 1]!,
        { ...job, attempt: job.attempt + 1, dueAt: next.dueAt, notBefore: next.notBefore, lastError },
        log,
      );
      return 'retry';
    }
    // A delivery redone after a crash or a rebalance may run twice. The run that recorded the last attempt
    // dead-letters it and counts it; a redo (which found it recorded) does so only if that was never finished.
    // Counting is marked on the attempt, so one delivery is one terminal failure, never more.
    const key = {
      endpoint_id: job.endpointId,
      event_id: job.eventId,
      attempt: job.attempt,
      replay: job.replay,
    };
    if (!stored && (await persistently('terminal check', () => deps.state.settled(key), deps.stopping, log)))
      return 'terminal';
    await handOff(deps.deadLetterTopic, { ...job, lastError }, log);
    deps.meter.deadLettered();
    const disabled = await persistently(
      'terminal failure',
      () => deps.state.terminalFailure(endpoint, key, gone ? 'gone' : 'consecutive_failures'),
      deps.stopping,
      log,
    );
    if (disabled) {
      deps.meter.autoDisabled();
      deps.directory.forget(endpoint.id);
      log().warn(
        { target: new URL(endpoint.url).origin, reason: gone ? 'gone' : 'consecutive_failures' },
        gone
          ? 'endpoint disabled: the receiver answered 410 Gone'
          : 'endpoint disabled after consecutive terminal failures',
      );
    }
    return 'terminal';
  };
}

export type Deliver = ReturnType<typeof deliverer>;
