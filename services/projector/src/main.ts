import {
  auditEventCodec,
  createHttpServer,
  clickhouseReady,
  consumerLagSource,
  createClickHouse,
  createMetrics,
  DurableProducer,
  bootstrapKafka,
  createLogger,
  migrateClickHouse,
  onShutdown,
  registerConsumerLag,
  registerErrorHandling,
  registerHealth,
  registerHttpMetrics,
  registerMetricsRoute,
  systemClock,
} from '@audit/shared';
import { runProjectorConsumer } from './adapters/audit.consumer.js';
import { clickhouseSink } from './adapters/clickhouse.sink.js';
import { deadLetterPublisher } from './adapters/dead-letter.publisher.js';
import { GroupMembership } from './adapters/group-membership.js';
import { projectorMetrics } from './adapters/projector.metrics.js';
import { retryingFlush } from './adapters/retrying-flush.js';
import { loadConfig } from './config.js';
import type { ConsumedRecord } from './domain/consumed-record.js';
import { FlushBuffer } from './domain/flush-buffer.js';

const config = loadConfig(process.env);
const logger = createLogger('projector', config.logLevel);
const { kafka, topics: topicSet } = await bootstrapKafka(config.kafka, logger, '-projector');
await migrateClickHouse(config.clickhouse);

const clickhouse = createClickHouse(config.clickhouse);
const producer = new DurableProducer(kafka);
await producer.connect();
const admin = kafka.admin();
await admin.connect();

const metrics = createMetrics('projector');
let stopping = false;
const sink = clickhouseSink(clickhouse, config.clickhouse.database);
const group = new GroupMembership(sink);
const flush = retryingFlush(
  {
    codec: auditEventCodec(config.schemasDir),
    sink,
    deadLetters: deadLetterPublisher(producer, topicSet.projectorDeadLetter.name, systemClock),
    settledSinceJoin: () => group.settledSinceJoin(),
    shouldStop: () => stopping || group.isLost,
    meter: projectorMetrics(metrics),
  },
  logger,
);
const buffer = new FlushBuffer<ConsumedRecord>({
  maxItems: config.batchSize,
  maxDelayMs: config.flushMs,
  idleMs: config.flushIdleMs,
  minIntervalMs: config.flushMinIntervalMs,
  flush,
});
const consumer = kafka.consumer({
  groupId: config.groupId,
  sessionTimeout: config.sessionTimeoutMs,
  heartbeatInterval: 3000,
  maxBytesPerPartition: 8 * 1024 * 1024,
  // Larger fetches amortize each write's fixed costs (lookup, insert round trip, commit) over more records.
  maxBytes: 32 * 1024 * 1024,
  maxWaitTimeInMs: 100,
});
await consumer.connect();
await runProjectorConsumer({
  consumer,
  topic: topicSet.auditEvents.name,
  partitions: topicSet.auditEvents.partitions,
  buffer,
  group,
  logger,
});

registerConsumerLag(
  metrics,
  consumerLagSource(admin, [{ groupId: config.groupId, topics: [topicSet.auditEvents.name] }], logger),
);
const app = createHttpServer(logger);
registerHttpMetrics(app, metrics);
registerErrorHandling(app);
registerHealth(app, {
  clickhouse: () => clickhouseReady(clickhouse),
  kafka: () => admin.describeCluster(),
});
// The internal health listener: unauthenticated like the health endpoints.
registerMetricsRoute(app, metrics);
await app.listen({ host: config.host, port: config.port });
logger.info({ host: config.host, port: config.port, topic: topicSet.auditEvents.name }, 'projector running');

onShutdown(logger, async () => {
  stopping = true;
  buffer.flushNow();
  await consumer.disconnect();
  await app.close();
  await producer.disconnect();
  await admin.disconnect();
  await clickhouse.close();
});
