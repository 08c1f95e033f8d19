import pg from 'pg';
import {
  auditEventCodec,
  auditPublisher,
  AuditGenerations,
  AuditTopicRoute,
  clickhouseReady,
  createClickHouse,
  createHttpServer,
  createLogger,
  createMetrics,
  DurableProducer,
  exportFiles,
  exportJobCodec,
  kafkaDeployment,
  liveTables,
  loggableError,
  migratePostgres,
  onShutdown,
  projectionStateStore,
  registerErrorHandling,
  registerHealth,
  registerHttpMetrics,
  registerMetricsRoute,
  registerStartupGate,
  Startup,
  systemClock,
} from '@audit/shared';
import { expireDue } from './adapters/expiry.sweeper.js';
import { runJobConsumer } from './adapters/job.consumer.js';
import { runJob } from './adapters/job.runner.js';
import { loadConfig } from './config.js';

const AUDIT_TIMEOUT_MS = 5000;
// A request waits this long for the gateway's commit that follows its publish (docs/exports.md "Jobs").
const ROW_WAIT_MS = 30_000;

const config = loadConfig(process.env);
const logger = createLogger('exporter', config.logLevel);
const startup = new Startup(logger);
const { kafka, topics, ensureTopics } = kafkaDeployment(config.kafka, logger, '-exporter');
const producer = new DurableProducer(kafka);
const admin = kafka.admin();
// The audit topic's writable generation: it moves when the topic grows (docs/topic-growth.md).
const auditTopic = new AuditTopicRoute(admin, topics.auditEvents.name, { logger });
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10, connectionTimeoutMillis: 5000 });
pool.on('error', (err) => logger.warn({ err: loggableError(err) }, 'idle Postgres connection failed'));
// Reads of whole chunks take longer than a page's: a chunk's sort is bounded, its transfer is not.
const clickhouse = createClickHouse(config.clickhouse, config.clickhouse.database, 300_000);
const files = exportFiles(config.storage);
const consumer = kafka.consumer({
  groupId: config.groupId,
  sessionTimeout: config.sessionTimeoutMs,
  heartbeatInterval: 3000,
  // A member running a job rejoins after it: a rebalance waits for it this long before leaving it out.
  rebalanceTimeout: 600_000,
});
let joined = false;
consumer.on(consumer.events.GROUP_JOIN, () => (joined = true));

const metrics = createMetrics('exporter');
const app = createHttpServer(logger);
registerHttpMetrics(app, metrics);
registerErrorHandling(app);
registerStartupGate(app, startup);
registerHealth(app, {
  postgres: () => pool.query('SELECT 1'),
  clickhouse: () => clickhouseReady(clickhouse),
  kafka: () => admin.describeCluster(),
  // The directory or bucket, made when missing (as `ops migrate` does): a job never starts into a store it cannot use.
  export_files: () => files.prepare(),
  consumers: async () => {
    if (!joined) throw new Error('consumer group not joined yet');
  },
});
registerMetricsRoute(app, metrics);
await app.listen({ host: config.host, port: config.port });
logger.info({ host: config.host, port: config.port, export_files: files.describe() }, 'exporter listening');

let sweeping: Promise<unknown> = Promise.resolve();
// Set once the start-up has finished; a signal before that finds none.
const timers: { sweeper?: NodeJS.Timeout } = {};
onShutdown(logger, async () => {
  clearInterval(timers.sweeper);
  startup.stop();
  await app.close();
  // A job in progress is abandoned with its record uncommitted: whoever takes the partition runs it again.
  await consumer.disconnect();
  await sweeping;
  await producer.disconnect();
  await admin.disconnect();
  await pool.end();
  await clickhouse.close();
});

await startup.step('postgres', () => migratePostgres(config.databaseUrl));
await startup.step('kafka', ensureTopics);
await startup.step('kafka', () => producer.connect());
await startup.step('kafka', () => admin.connect());
await startup.step('kafka', () => auditTopic.refresh());
const generations = await startup.step('postgres', () =>
  AuditGenerations.load({ db: pool, admin, base: topics.auditEvents }),
);

const audit = auditPublisher({
  producer,
  topic: auditTopic,
  codec: auditEventCodec(),
  clock: systemClock,
  queue: { maxQueuedBytes: 4 * 1024 * 1024, maxWaitMs: AUDIT_TIMEOUT_MS },
});
const runner = {
  pool,
  clickhouse,
  // The exporter reads the events table only, never the filter index: a chunk reads a time range whole.
  tables: liveTables(projectionStateStore(clickhouse), { ready: async () => false }),
  files,
  admin,
  auditTopics: async () => (await generations.reload()).map((g) => g.topic),
  projectorGroup: config.projectorGroupId,
  audit,
  clock: systemClock,
  settings: config.jobs,
  logger,
};
await startup.step('kafka', () =>
  runJobConsumer({
    consumer,
    topic: topics.exportJobs.name,
    concurrency: config.concurrency,
    codec: exportJobCodec(),
    pool,
    run: (request) => runJob(runner, request),
    logger,
    rowWaitMs: ROW_WAIT_MS,
  }),
);
// One pass at a time: a pass still running when the next is due is not joined by another.
timers.sweeper = setInterval(() => {
  sweeping = sweeping.then(() =>
    expireDue({ pool, files, clock: systemClock, logger }).catch((err: unknown) =>
      logger.warn({ err: loggableError(err) }, 'export expiry pass failed'),
    ),
  );
}, config.expirySweepMs);
startup.finish();
logger.info({ topic: topics.exportJobs.name }, 'exporter running');
