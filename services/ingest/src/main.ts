import {
  auditEventCodec,
  auditPublisher,
  AuditTopicRoute,
  DurableProducer,
  createLogger,
  createMetrics,
  kafkaDeployment,
  onShutdown,
  Startup,
  systemClock,
} from '@audit/shared';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

const config = loadConfig(process.env);
const logger = createLogger('ingest', config.logLevel);
const startup = new Startup(logger);
const { kafka, topics: topicSet, ensureTopics } = kafkaDeployment(config.kafka, logger, '-ingest');
const producer = new DurableProducer(kafka);
const admin = kafka.admin();
// The audit topic's writable generation: it moves when the topic grows (docs/topic-growth.md).
const auditTopic = new AuditTopicRoute(admin, topicSet.auditEvents.name, { logger });

const app = await buildApp({
  logger,
  metrics: createMetrics('ingest'),
  token: config.token,
  maxBytes: config.maxBytes,
  publishTimeoutMs: config.publishTimeoutMs,
  clock: systemClock,
  publisher: auditPublisher({
    producer,
    topic: auditTopic,
    codec: auditEventCodec(),
    clock: systemClock,
    // Nothing outlives the caller's wait: after a 503 the client re-sends, so the queued copy is dropped unsent.
    queue: { maxQueuedBytes: config.maxQueuedBytes, maxWaitMs: config.publishTimeoutMs },
  }),
  startup,
  readiness: { kafka: () => admin.describeCluster() },
});
// Listening before Kafka answers: /healthz says alive, /readyz that it waits (registerStartupGate).
await app.listen({ host: config.host, port: config.port });
logger.info({ host: config.host, port: config.port }, 'ingest listening');

// Installed before anything waits, so a signal during the start-up also stops the process cleanly. app.close()
// lets requests in flight finish (each waits for Kafka's acknowledgement) before the producer goes.
onShutdown(logger, async () => {
  startup.stop();
  await app.close();
  await producer.disconnect();
  await admin.disconnect();
});

await startup.step('kafka', ensureTopics);
await startup.step('kafka', () => producer.connect());
await startup.step('kafka', () => admin.connect());
await startup.step('kafka', () => auditTopic.refresh());
startup.finish();
