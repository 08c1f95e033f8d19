import { AuditGenerations, watchGrowth } from '@audit/shared/audit-topic';
import { auditEventCodec, systemClock } from '@audit/shared/contract';
import { type ServiceHost } from '@audit/shared/host';
import { checkPostgresSchema } from '@audit/shared/migrations';
import {
  consumerLagSource,
  loggableError,
  registerConsumerLag,
  RestartableConsumer,
} from '@audit/shared/platform';
import { HORIZON_REFRESH_MS, purgeRepository, retentionFilter } from '@audit/shared/retention';
import { allowList, cachedResolve, secretBox, webhookClient } from '@audit/shared/webhooks';
import { ATTEMPT_SWEEP_MS, sweepAttempts } from './adapters/attempts-retention.sweeper.js';
import { deferrer, deliverer, hopper } from './adapters/deliverer.js';
import { deliveryState } from './adapters/delivery-state.js';
import { dispatcherMetrics } from './adapters/dispatcher.metrics.js';
import { dispatchHandler } from './adapters/dispatch.handler.js';
import { endpointDirectory } from './adapters/endpoint-directory.js';
import { gatedByGeneration } from './adapters/gated.handler.js';
import { startNewGroupAtEnd } from './adapters/group-start.js';
import { rateSlotsRepository } from './adapters/rate-slots.repository.js';
import { replayRunner } from './adapters/replay.runner.js';
import { retryHandler } from './adapters/retry.handler.js';
import {
  runTrackedConsumer,
  type TrackedConsumer,
  type TrackedConsumerOptions,
} from './adapters/tracked-consumer.js';
import type { DispatcherConfig } from './config.js';
import { longestRetryWindowMs } from './domain/attempt-retention.js';
import { KeyedLanes } from './domain/keyed-lanes.js';

const SHUTDOWN_GRACE_MS = 15_000;
const AUDIT_TIMEOUT_MS = 5000;

/** The dispatcher: it delivers the audit events to the tenants' webhook endpoints (docs/webhooks.md). */
export async function dispatcherService(host: ServiceHost, config: DispatcherConfig): Promise<void> {
  const { logger } = host;
  const kafkaClients = host.kafka(config.kafka);
  const { kafka, topics, producer, admin, connect } = kafkaClients;
  const pool = host.postgres({ connectionString: config.databaseUrl, max: 20 });
  const directory = endpointDirectory({
    pool,
    databaseUrl: config.databaseUrl,
    box: secretBox(Buffer.from(config.webhooks.secretKey, 'hex')),
    reloadMs: config.endpointReloadMs,
    logger,
  });
  host.onStop(() => directory.stop());
  const client = webhookClient({
    timeoutMs: config.timeoutMs,
    rules: {
      allowHttp: config.webhooks.allowHttp,
      allowed: allowList(config.webhooks.allowCidrs),
      ports: config.webhooks.allowPorts,
    },
    resolve: cachedResolve({ timeoutMs: config.timeoutMs }),
    connectionsPerEndpoint: config.concurrencyPerEndpoint,
  });
  host.onStop(() => client.close());
  // Deliveries end their retries once the consumers have let their running work finish: set then, not before.
  let stopping = false;
  host.onStop(() => (stopping = true));

  // Every tier is read, also those a shortened WEBHOOK_RETRY_DELAYS no longer fills: nothing left there is stranded.
  const retryTopics = topics.webhookRetries.map((t) => t.name);
  const retriesGroup = `${config.groupId}-retries`;
  // The audit topic's generations the events consumer reads (docs/topic-growth.md).
  let eventTopics = [topics.auditEvents.name];
  // One lag source for both gauges: a scrape asks Kafka once.
  const lag = consumerLagSource(
    admin,
    () => [
      { groupId: config.groupId, topics: eventTopics },
      { groupId: retriesGroup, topics: retryTopics },
    ],
    logger,
  );
  registerConsumerLag(host.metrics, lag);
  const meter = dispatcherMetrics(host.metrics, { lag, retriesGroup, retryTopics });
  const lanes = new KeyedLanes(config.concurrencyPerEndpoint);
  // No longer than the deadline the auto-disable waits: a publish given up on must not land later.
  const auditLog = kafkaClients.auditLog({ maxQueuedBytes: 4 * 1024 * 1024, maxWaitMs: AUDIT_TIMEOUT_MS });
  // The schedule, and how far a receiver's Retry-After may push it (docs/webhooks.md "Receiver signals").
  const policy = { ...config.retry, retryAfterMaxMs: config.retryAfterMaxMs };
  const deliver = deliverer({
    slots: {
      take: (endpointId, intervalMs) => rateSlotsRepository.take(pool, endpointId, intervalMs),
      pass: (endpointId, intervalMs) => rateSlotsRepository.pass(pool, endpointId, intervalMs),
    },
    directory,
    send: (request) => client.send(request),
    state: deliveryState({
      pool,
      auditLog,
      auditTimeoutMs: AUDIT_TIMEOUT_MS,
      autoDisableAfter: config.autoDisableAfter,
    }),
    producer,
    retryTopics,
    deadLetterTopic: topics.webhookDeadLetter.name,
    policy,
    clock: systemClock,
    random: Math.random,
    stopping: () => stopping,
    logger,
    meter,
  });
  // What hands a delivery on to a retry tier: the deferrer (a busy lane) and the hopper (a held-back retry).
  const handOffDeps = { producer, stopping: () => stopping, retryTopics, policy, clock: systemClock, logger };
  const delivery = {
    lanes,
    deliver,
    defer: deferrer(handOffDeps),
    maxWaitingPerEndpoint: config.maxWaitingPerEndpoint,
    meter,
  };

  // Readiness waits for both consumers; neither is there while it starts again.
  const consumers: {
    events?: RestartableConsumer<TrackedConsumer>;
    retries?: RestartableConsumer<TrackedConsumer>;
  } = {};
  await host.serveInternal(config, {
    postgres: () => pool.query('SELECT 1'),
    kafka: () => admin.describeCluster(),
    consumers: async () => {
      if (!consumers.events?.get()?.joined() || !consumers.retries?.get()?.joined())
        throw new Error('consumer groups not joined yet');
    },
  });

  // Events a retention purge removed are delivered no more than stored, live or replayed (docs/retention.md).
  const retained = retentionFilter(purgeRepository(pool), HORIZON_REFRESH_MS, systemClock);
  const replays = replayRunner({
    pool,
    kafka,
    admin,
    producer,
    codec: auditEventCodec(),
    auditTopic: topics.auditEvents.name,
    firstRetryTopic: retryTopics[0]!,
    perSecond: config.replayPerSecond,
    settleMs: config.replaySettleMs,
    sliceMs: config.replaySliceMs,
    retained,
    clock: systemClock,
    logger: logger.child({ component: 'replays' }),
  });

  await host.step('postgres', () => checkPostgresSchema(pool));
  await connect();
  const generations = await host.step('postgres', () =>
    AuditGenerations.load({ db: pool, admin, base: topics.auditEvents }),
  );
  await host.step('kafka', () => startNewGroupAtEnd(admin, config.groupId, generations.topics(), logger));
  // The first load of the endpoints before any consuming: consuming before it would miss endpoints.
  await host.step('postgres', () => directory.start());

  const consumerSettings = {
    sessionTimeout: config.sessionTimeoutMs,
    heartbeatInterval: 3000,
    maxWaitTimeInMs: 100,
  };
  const common = { lanes, maxInFlight: config.maxInFlight, commitEveryMs: 500, graceMs: SHUTDOWN_GRACE_MS };
  const dispatch = gatedByGeneration(
    generations.gate(config.groupId),
    dispatchHandler({
      codec: auditEventCodec(),
      matching: directory.matching,
      changed: directory.changed,
      retained,
      stopping: () => stopping,
      ...delivery,
      clock: systemClock,
      logger,
    }),
    () => stopping,
  );
  /** A consumer started again when kafkajs gives it up, or (the events consumer) when the audit topic grows. */
  const restartable = (name: string, runOf: () => Omit<TrackedConsumerOptions, 'onGivenUp'>) => {
    const consumer: RestartableConsumer<TrackedConsumer> = new RestartableConsumer(
      () =>
        runTrackedConsumer({
          ...runOf(),
          onGivenUp: (err) => {
            logger.error(
              { err: loggableError(err), consumer: name },
              'consumer stopped for good; starting it again',
            );
            void consumer.restart();
          },
        }),
      { what: `the ${name} consumer`, logger, stopping: host.stopping, fatal: host.fatal },
    );
    return consumer;
  };
  // Every generation of the audit topic (docs/topic-growth.md); a later one is read from its beginning, since the
  // group has read the one before (group-start.ts).
  consumers.events = restartable('events', () => {
    eventTopics = generations.topics();
    return {
      ...common,
      consumer: kafka.consumer({ groupId: config.groupId, ...consumerSettings }),
      topics: eventTopics,
      fromBeginning: (topic: string) => (generations.generationOf(topic) ?? 1) > 1,
      concurrency: generations.partitions(),
      logger: logger.child({ consumer: 'events' }),
      handle: dispatch,
    };
  });
  consumers.retries = restartable('retries', () => ({
    ...common,
    consumer: kafka.consumer({ groupId: retriesGroup, ...consumerSettings }),
    topics: retryTopics,
    fromBeginning: () => true,
    concurrency: retryTopics.length * topics.auditEvents.partitions,
    logger: logger.child({ consumer: 'retries' }),
    handle: retryHandler({
      ...delivery,
      clock: systemClock,
      logger,
      hop: hopper({ ...handOffDeps, directory }),
    }),
  }));
  const { events, retries } = consumers;
  // Both at once: each lets its running work finish for up to the grace.
  host.onStop(() => Promise.all([events.stop(), retries.stop(), replays.stop()]));
  await events.begin((start) => host.step('kafka', start));
  await retries.begin((start) => host.step('kafka', start));
  // A growth of the audit topic: the events consumer is started again with the new generation, which it reads from
  // its beginning once the generation before is read up to its seal.
  const growth = watchGrowth(generations, {
    logger,
    subscribed: () => eventTopics,
    onGrown: (stopped) => events.restart(stopped),
  });
  host.onStop(() => growth.stop());

  let sweeping: Promise<unknown> = Promise.resolve();
  // One pass at a time: a pass still running when the next is due is not joined by another.
  const sweep = () => {
    sweeping = sweeping.then(() =>
      sweepAttempts({
        pool,
        retentionDays: config.attemptRetentionDays,
        longestWindowMs: longestRetryWindowMs(config.retry, config.retryAfterMaxMs),
        clock: systemClock,
        logger,
        stopping: host.stopping,
      }).catch((err: unknown) =>
        logger.warn({ err: loggableError(err) }, 'delivery attempts retention pass failed'),
      ),
    );
  };
  const sweeper = setInterval(sweep, ATTEMPT_SWEEP_MS);
  host.onStop(() => {
    clearInterval(sweeper);
    return sweeping;
  });
  host.finish();
  replays.start();
  sweep();
}
