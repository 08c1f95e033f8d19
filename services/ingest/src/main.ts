import {
  auditEventCodec,
  auditPublisher,
  createDurableProducer,
  bootstrapKafka,
  createLogger,
  onShutdown,
  systemClock,
} from '@audit/shared';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

const config = loadConfig(process.env);
const logger = createLogger('ingest', config.logLevel);
const { kafka, topics: topicSet } = await bootstrapKafka(config.kafka, logger, '-ingest');

const producer = createDurableProducer(kafka);
await producer.connect();
const admin = kafka.admin();
await admin.connect();

const app = await buildApp({
  logger,
  token: config.token,
  maxBytes: config.maxBytes,
  publishTimeoutMs: config.publishTimeoutMs,
  clock: systemClock,
  publisher: auditPublisher({
    producer,
    topic: topicSet.auditEvents.name,
    codec: auditEventCodec(),
    clock: systemClock,
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
