import pg from 'pg';
import {
  allowList,
  auditEventCodec,
  auditPublisher,
  retryWithBackoff,
  watchGrowth,
  AuditGenerations,
  AuditTopicRoute,
  cachedResolve,
  consumerLagSource,
  createHttpServer,
  createLogger,
  createMetrics,
  DurableProducer,
  kafkaDeployment,
  loggableError,
  migratePostgres,
  onShutdown,
  registerConsumerLag,
  registerErrorHandling,
  registerHealth,
  registerHttpMetrics,
  registerMetricsRoute,
  registerStartupGate,
  secretBox,
  Startup,
  systemClock,
  rateSlotsRepository,
} from '@audit/shared';

import { ATTEMPT_SWEEP_MS, sweepAttempts } from './adapters/attempts-retention.sweeper.js';
import { deferrer, deliverer, hopper } from './adapters/deliverer.js';
import { deliveryState } from './adapters/delivery-state.js';
import { dispatcherMetrics } from './adapters/dispatcher.metrics.js';
import { dispatchHandler } from './adapters/dispatch.handler.js';
import { endpointDirectory } from './adapters/endpoint-directory.js';
import { gatedByGeneration } from './adapters/gated.handler.js';
import { startNewGroupAtEnd } from './adapters/group-start.js';
import { replayRunner } from './adapters/replay.runner.js';
import { retryHandler } from './adapters/retry.handler.js';
import { runTrackedConsumer, type TrackedConsumer } from './adapters/tracked-consumer.js';
import { webhookClient } from '@audit/shared';
import { loadConfig } from './config.js';
import { longestRetryWindowMs } from './domain/attempt-retention.js';
import { KeyedLanes } from './domain/keyed-lanes.js';

const SHUTDOWN_GRACE_MS = 15_000;
// How often the audit topic's generations are read for a growth (docs/topic-growth.md "Consumers").
const GROWTH_POLL_MS = 5000;
const AUDIT_TIMEOUT_MS = 5000;

const config = loadConfig(process.env);
const logger = createLogger('dispatcher', config.logLevel);
const startup = new Startup(logger);
const { kafka, topics, ensureTopics } = kafkaDeployment(config.kafka, logger, '-dispatcher');
const producer = new DurableProducer(kafka);
const admin = kafka.admin();
// The audit topic's writable generation: it moves when the topic grows (docs/topic-growth.md).
const auditTopic = new AuditTopicRoute(admin, topics.auditEvents.name, { logger });

const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 20, connectionTimeoutMillis: 5000 });
pool.on('error', (err) => logger.warn({ err: loggableError(err) }, 'idle Postgres connection failed'));
const directory = endpointDirectory({
  pool,
  databaseUrl: config.databaseUrl,
  box: secretBox(Buffer.from(config.webhooks.secretKey, 'hex')),
  reloadMs: config.endpointReloadMs,
  logger,
});

// Every tier is read, also those a shortened WEBHOOK_RETRY_DELAYS no longer fills: nothing left there is stranded.
const retryTopics = topics.webhookRetries.map((t) => t.name);
const retriesGroup = `${config.groupId}-retries`;
const metrics = createMetrics('dispatcher');
// The audit topic's generations the events consumer reads (docs/topic-growth.md), and the watch of its growth.
let eventTopics = [topics.auditEvents.name];
const growth: { watch?: { stop(): Promise<void> } } = {};
// One lag source for both gauges: a scrape asks Kafka once.
const lag = consumerLagSource(
  admin,
  () => [
    { groupId: config.groupId, topics: eventTopics },
    { groupId: retriesGroup, topics: retryTopics },
  ],
  logger,
);
registerConsumerLag(metrics, lag);
const meter = dispatcherMetrics(metrics, { lag, retriesGroup, retryTopics });

let stopping = false;
// Filled in by the start-up as each consumer runs: readiness waits for both, a shutdown stops what has started.
const consumers: { events?: TrackedConsumer; retries?: TrackedConsumer } = {};
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
const lanes = new KeyedLanes(config.concurrencyPerEndpoint);
const auditLog = auditPublisher({
  producer,
  topic: auditTopic,
  codec: auditEventCodec(),
  clock: systemClock,
  // No longer than the deadline the auto-disable waits: a publish given up on must not land later.
  queue: { maxQueuedBytes: 4 * 1024 * 1024, maxWaitMs: AUDIT_TIMEOUT_MS },
});
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

const app = createHttpServer(logger);
registerHttpMetrics(app, metrics);
registerErrorHandling(app);
registerStartupGate(app, startup);
registerHealth(app, {
  postgres: () => pool.query('SELECT 1'),
  kafka: () => admin.describeCluster(),
  consumers: async () => {
    const { events, retries } = consumers;
    if (!events?.joined() || !retries?.joined()) throw new Error('consumer groups not joined yet');
  },
});
// The internal health listener: unauthenticated like the health endpoints.
registerMetricsRoute(app, metrics);
// Listening before the dependencies answer: /healthz says alive, /readyz what it waits for (registerStartupGate).
await app.listen({ host: config.host, port: config.port });
logger.info({ host: config.host, port: config.port }, 'dispatcher listening');

let sweeping: Promise<unknown> = Promise.resolve();
// Set once the start-up has finished; a signal before that finds none.
const timers: { sweeper?: NodeJS.Timeout } = {};
// One pass at a time: a pass still running when the next is due is not joined by another.
const sweep = () => {
  sweeping = sweeping.then(() =>
    sweepAttempts({
      pool,
      retentionDays: config.attemptRetentionDays,
      longestWindowMs: longestRetryWindowMs(config.retry, config.retryAfterMaxMs),
      clock: systemClock,
      logger,
      stopping: () => stopping,
    }).catch((err: unknown) =>
      logger.warn({ err: loggableError(err) }, 'delivery attempts retention pass failed'),
    ),
  );
};

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
  clock: systemClock,
  logger: logger.child({ component: 'replays' }),
});

// Installed before anything waits, so a signal during the start-up also stops the process cleanly.
onShutdown(logger, async () => {
  clearInterval(timers.sweeper);
  startup.stop();
  await app.close();
  await growth.watch?.stop();
  await Promise.all([
    consumers.events?.stop(SHUTDOWN_GRACE_MS),
    consumers.retries?.stop(SHUTDOWN_GRACE_MS),
    replays.stop(),
  ]);
  stopping = true;
  await client.close();
  await directory.stop();
  await producer.disconnect();
  await admin.disconnect();
  await sweeping;
  await pool.end();
});

await startup.step('postgres', () => migratePostgres(config.databaseUrl));
await startup.step('kafka', ensureTopics);
await startup.step('kafka', () => producer.connect());
await startup.step('kafka', () => admin.connect());
await startup.step('kafka', () => auditTopic.refresh());
const generations = await startup.step('postgres', () =>
  AuditGenerations.load({ db: pool, admin, base: topics.auditEvents }),
);
await startup.step('kafka', () => startNewGroupAtEnd(admin, config.groupId, generations.topics(), logger));
// The first load of the endpoints before any consuming: consuming before it would miss endpoints.
await startup.step('postgres', () => directory.start());
const consumerSettings = {
  sessionTimeout: config.sessionTimeoutMs,
  heartbeatInterval: 3000,
  maxWaitTimeInMs: 100,
};
const common = { lanes, maxInFlight: config.maxInFlight, commitEveryMs: 500 };
const dispatch = gatedByGeneration(
  generations.gate(config.groupId),
  dispatchHandler({
    codec: auditEventCodec(),
    matching: directory.matching,
    changed: directory.changed,
    ...delivery,
    clock: systemClock,
    logger,
  }),
  () => stopping,
);
// Every generation of the audit topic (docs/topic-growth.md); a later one is read from its beginning, since the
// group has read the one before (group-start.ts). Built once per run: a failed attempt is retried on the same
// consumer (subscribing again is allowed until it runs).
const eventsRunOf = () => {
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
};
const eventsRun = eventsRunOf();
const retriesRun = {
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
};
consumers.events = await startup.step('kafka', () => runTrackedConsumer(eventsRun));
consumers.retries = await startup.step('kafka', () => runTrackedConsumer(retriesRun));
// A growth of the audit topic: the events consumer is started again with the new generation, which it reads from
// its beginning once the generation before is read up to its seal.
growth.watch = watchGrowth(generations, {
  pollMs: GROWTH_POLL_MS,
  logger,
  subscribed: () => eventTopics,
  onGrown: async (stopped) => {
    // Not ready while none runs; a shutdown meanwhile finds none to stop, and none is started after it.
    const previous = consumers.events;
    consumers.events = undefined;
    try {
      await previous?.stop(SHUTDOWN_GRACE_MS);
      if (stopped()) return;
      const run = eventsRunOf();
      consumers.events = await retryWithBackoff(() => runTrackedConsumer(run), {
        firstDelayMs: 500,
        maxDelayMs: 5000,
        stopping: stopped,
      });
    } catch (err) {
      if (stopped()) return;
      // Left without an events consumer in a state nothing here can tell: a new process starts clean.
      logger.fatal(
        { err: loggableError(err) },
        'the events consumer did not start again after a growth; stopping',
      );
      process.exit(1);
    }
  },
});
startup.finish();
replays.start();
sweep();
timers.sweeper = setInterval(sweep, ATTEMPT_SWEEP_MS);
