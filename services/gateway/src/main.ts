import pg from 'pg';
import {
  auditEventCodec,
  auditPublisher,
  AuditTopicRoute,
  clickhouseReady,
  createClickHouse,
  createHttpServer,
  createMetrics,
  DurableProducer,
  exportFiles,
  integrityStore,
  createLogger,
  kafkaDeployment,
  filterIndexState,
  liveTables,
  projectionStateStore,
  loggableError,
  checkClickHouseSchema,
  migratePostgres,
  onShutdown,
  registerErrorHandling,
  registerMetricsRoute,
  systemClock,
  allowList,
  secretBox,
  Startup,
  cachedResolve,
  resolveWithin,
  webhookClient,
} from '@audit/shared';
import { eventsReader } from './adapters/events.reader.js';
import { exportJobRequests } from './adapters/export-job-requests.js';
import { exportJobStore } from './adapters/export-job-store.js';
import { webhookStore } from './adapters/webhook-store.js';
import { cachedKeyStore } from './adapters/key-store.js';
import { directoryFirst, keyDirectory } from './adapters/key-directory.js';
import { postgresRateLimiter } from './adapters/rate-limiter.js';
import { buildApp } from './app.js';
import { TARGET_RESOLVE_MS } from './routes/webhooks.route.js';
import { loadConfig } from './config.js';

const config = loadConfig(process.env);
const logger = createLogger('gateway', config.logLevel);
const startup = new Startup(logger);

// The gateway writes audit events of its own (audit.export) through the same path as every producer, and the
// request records of export jobs.
const { kafka, topics, ensureTopics } = kafkaDeployment(config.kafka, logger, '-gateway');
const producer = new DurableProducer(kafka);
const admin = kafka.admin();
// The audit topic's writable generation: it moves when the topic grows (docs/topic-growth.md).
const auditTopic = new AuditTopicRoute(admin, topics.auditEvents.name, { logger });

// Bounded waits: a slow or unreachable Postgres answers 503 instead of holding requests.
const pool = new pg.Pool({
  connectionString: config.databaseUrl,
  max: 10,
  connectionTimeoutMillis: 2000,
  query_timeout: 2000,
});
// An idle client losing its connection (a Postgres restart) must not end the process.
pool.on('error', (err) => logger.warn({ err: loggableError(err) }, 'idle Postgres connection failed'));
const clickhouse = createClickHouse(config.clickhouse);
const metrics = createMetrics('gateway');
const keys = cachedKeyStore(pool, { ttlMs: config.keyCacheTtlMs, maxKeys: 100_000, maxUnknown: 10_000 });
const directory = keyDirectory({ databaseUrl: config.databaseUrl, logger, changed: keys.forget });
const targets = {
  allowHttp: config.webhooks.allowHttp,
  allowed: allowList(config.webhooks.allowCidrs),
  ports: config.webhooks.allowPorts,
  // The cached resolver the dispatcher uses (c-ares for what the DNS servers answer, the system lookup only for
  // names they do not know), and an answer within 2 s or a refusal: a client waits on it.
  resolve: resolveWithin(cachedResolve({ timeoutMs: TARGET_RESOLVE_MS }), TARGET_RESOLVE_MS),
};
// Test sends go out through the dispatcher's guarded client, under the rules endpoints are created with. A test is
// someone checking their receiver, rarely more than one at a time per endpoint: few connections each.
const testSender = webhookClient({
  timeoutMs: config.webhooks.testTimeoutMs,
  rules: targets,
  resolve: targets.resolve,
  connectionsPerEndpoint: 2,
});
const app = await buildApp({
  logger,
  metrics,
  trustedProxies: config.trustedProxies,
  limits: config.limits,
  authFailures: config.authFailures,
  takeToken: postgresRateLimiter(pool),
  auth: {
    pepper: config.apiKeyPepper,
    env: config.apiKeyEnv,
    findKey: directoryFirst(directory, keys.find),
  },
  cachedKey: keys.cached,
  events: eventsReader(
    clickhouse,
    liveTables(projectionStateStore(clickhouse), filterIndexState(clickhouse)),
  ),
  cursorSecret: config.cursorSecret,
  // Bounded like ingest: during a Kafka outage an export fails with 503 quickly instead of queueing.
  auditLog: auditPublisher({
    producer,
    topic: auditTopic,
    codec: auditEventCodec(),
    clock: systemClock,
    queue: { maxQueuedBytes: 16 * 1024 * 1024, maxWaitMs: config.auditTimeoutMs },
  }),
  auditTimeoutMs: config.auditTimeoutMs,
  exportConcurrency: config.exportConcurrency,
  exportJobs: exportJobStore(pool),
  integrity: integrityStore(pool),
  // Bounded as the audit events: a job whose record Kafka does not take in time is answered 503 and rolled back.
  exportJobRequests: exportJobRequests(producer, topics.exportJobs.name, config.auditTimeoutMs),
  exportJobLimits: config.exportJobLimits,
  replayMaxDays: config.replayMaxDays,
  exportFiles: exportFiles(config.exportStorage),
  webhooks: webhookStore(pool, secretBox(Buffer.from(config.webhooks.secretKey, 'hex'))),
  targets,
  testSender,
  clock: systemClock,
  startup,
  readiness: {
    postgres: () => pool.query('SELECT 1'),
    clickhouse: () => clickhouseReady(clickhouse),
    kafka: () => admin.describeCluster(),
  },
});
// Its own listener: the public port must not expose internal metrics (see config.ts).
const metricsServer = createHttpServer(logger);
registerErrorHandling(metricsServer);
registerMetricsRoute(metricsServer, metrics);

// Listening before the dependencies answer: /healthz says alive, /readyz what it waits for (registerStartupGate).
await app.listen({ host: config.host, port: config.port });
logger.info({ host: config.host, port: config.port }, 'gateway listening');
await metricsServer.listen({ ...config.metrics });
logger.info(config.metrics, 'gateway metrics listening');

// Installed before anything waits, so a signal during the start-up also stops the process cleanly. app.close()
// lets requests in flight finish before the clients they use are closed.
onShutdown(logger, async () => {
  startup.stop();
  await app.close();
  await testSender.close();
  await metricsServer.close();
  await directory.stop();
  await pool.end();
  await clickhouse.close();
  await producer.disconnect();
  await admin.disconnect();
});

await startup.step('postgres', () => migratePostgres(config.databaseUrl));
// After the migrations: the table it reads and the trigger that announces changes exist.
directory.start();
// It reads with a read-only user: the projector and `ops migrate` apply the migrations it waits for.
await startup.step('clickhouse', () => checkClickHouseSchema(config.clickhouse));
await startup.step('kafka', ensureTopics);
await startup.step('kafka', () => producer.connect());
await startup.step('kafka', () => admin.connect());
await startup.step('kafka', () => auditTopic.refresh());
startup.finish();
