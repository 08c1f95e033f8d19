import pg from 'pg';
import {
  auditEventCodec,
  createHttpServer,
  createLogger,
  createMetrics,
  consumerLagSource,
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
  Startup,
  systemClock,
} from '@audit/shared';
import { runCheckpointLoop } from './adapters/checkpoint.loop.js';
import { checkpointMetrics, notaryMetrics } from './adapters/notary.metrics.js';
import { guardPartitionCount, PartitionCountChangedError } from './adapters/partition-guard.js';
import { signingKeyCache } from './adapters/signing-key.cache.js';
import { runTreeConsumer } from './adapters/tree.consumer.js';
import { FETCH_PARTITION_BYTES, loadConfig } from './config.js';

const config = loadConfig(process.env);
const logger = createLogger('notary', config.logLevel);
const startup = new Startup(logger);
const { kafka, topics, ensureTopics } = kafkaDeployment(config.kafka, logger, '-notary');
const admin = kafka.admin();
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10, connectionTimeoutMillis: 5000 });
pool.on('error', (err) => logger.warn({ err: loggableError(err) }, 'idle Postgres connection failed'));
const consumer = kafka.consumer({
  groupId: config.groupId,
  sessionTimeout: config.sessionTimeoutMs,
  heartbeatInterval: 3000,
  maxBytesPerPartition: FETCH_PARTITION_BYTES,
  // A fetch waits for NOTARY_FETCH_MIN_BYTES of records or NOTARY_FETCH_MAX_WAIT_MS: each batch's transaction has
  // fixed costs that larger batches spread over more leaves (docs/architecture.md "Notary").
  maxBytes: 32 * 1024 * 1024,
  minBytes: config.fetch.minBytes,
  maxWaitTimeInMs: config.fetch.maxWaitMs,
});
let joined = false;
consumer.on(consumer.events.GROUP_JOIN, () => (joined = true));

const metrics = createMetrics('notary');
let stopping = false;
let checkpointing: Promise<void> = Promise.resolve();
const app = createHttpServer(logger);
registerHttpMetrics(app, metrics);
registerErrorHandling(app);
registerStartupGate(app, startup);
registerHealth(app, {
  postgres: () => pool.query('SELECT 1'),
  kafka: () => admin.describeCluster(),
  consumers: async () => {
    if (!joined) throw new Error('consumer group not joined yet');
  },
});
registerMetricsRoute(app, metrics);
await app.listen({ host: config.host, port: config.port });
logger.info({ host: config.host, port: config.port }, 'notary listening');

onShutdown(logger, async () => {
  stopping = true;
  startup.stop();
  await app.close();
  // A batch being appended is left uncommitted: whoever takes the partition appends it again, adding nothing.
  await consumer.disconnect();
  await checkpointing;
  await admin.disconnect();
  await pool.end();
});

await startup.step('postgres', () => migratePostgres(config.databaseUrl));
await startup.step('kafka', ensureTopics);
await startup.step('kafka', () => admin.connect());
// A topic the trees cannot be appended from stops the process: no retry makes it right, an operator must
// (docs/operations.md "Integrity"). A batch in progress is left uncommitted, which adds nothing when redone.
const giveUp = (err: Error): never => {
  logger.fatal({ err: loggableError(err) }, 'the trees cannot go on; stopping');
  process.exit(1);
};
const topic = topics.auditEvents.name;
const metadata = await startup.step('kafka', () => admin.fetchTopicMetadata({ topics: [topic] }));
const partitions = await startup.step('postgres', () =>
  guardPartitionCount(pool, topic, metadata.topics[0]!.partitions.length).catch((err: unknown) => {
    throw err instanceof PartitionCountChangedError ? giveUp(err) : err;
  }),
);
await startup.step('kafka', () =>
  runTreeConsumer({
    consumer,
    topic,
    partitions,
    codec: auditEventCodec(),
    pool,
    meter: notaryMetrics(metrics),
    stopping: () => stopping,
    fatal: giveUp,
    logger,
  }),
);
// The private half of the signing key is read here only (docs/integrity.md "Signing keys").
checkpointing = runCheckpointLoop({
  pool,
  signingKey: signingKeyCache(pool, config.integrity.keyDir),
  settings: { logName: config.integrity.logName, ...config.checkpoints },
  meter: checkpointMetrics(metrics),
  now: systemClock,
  stopping: () => stopping,
  logger,
});
registerConsumerLag(
  metrics,
  consumerLagSource(admin, [{ groupId: config.groupId, topics: [topic] }], logger),
);
startup.finish();
logger.info({ topic, partitions }, 'notary running');
