import {
  auditEventCodec,
  auditPublisher,
  DurableProducer,
  bootstrapKafka,
  createLogger,
  createMetrics,
  onShutdown,
  systemClock,
} from '@audit/shared';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

const config = loadConfig(process.env);
const logger = createLogger('ingest', config.logLevel);
const { kafka, topics: topicSet } = await bootstrapKafka(config.kafka, logger, '-ingest');

const producer = new DurableProducer(kafka);
await producer.connect();
const admin = kafka.admin();
await admin.connect();

const app = await buildApp({
  logger,
  metrics: createMetrics('ingest'),
  token: config.token,
  maxBytes: config.maxBytes,
  publishTimeoutMs: config.publishTimeoutMs,
  clock: systemClock,
  publisher: auditPublisher({
    producer,
    topic: topicSet.auditEvents.name,
    codec: auditEventCodec(),
    clock: systemClock,
    // Nothing outlives the caller's wait: after a 503 the client re-sends, so the queued copy is dropped unsent.
    queue: { maxQueuedBytes: config.maxQueuedBytes, maxWaitMs: config.publishTimeoutMs },
  }),
  readiness: { kafka: () => admin.describeCluster() },
});
await app.listen({ host: config.host, port: config.port });
logger.info({ host: config.host, port: config.port }, 'ingest listening');

onShutdown(logger, async () => {
  await app.close();
  await producer.disconnect();
  await admin.disconnect();
});
