import { systemClock } from '@audit/shared/contract';
import { exportFiles } from '@audit/shared/export-jobs';
import { type ServiceHost } from '@audit/shared/host';
import { integrityStore } from '@audit/shared/integrity';
import { checkClickHouseSchema, checkPostgresSchema } from '@audit/shared/migrations';
import { clickhouseReady } from '@audit/shared/platform';
import { filterIndexState, liveTables, projectionStateStore } from '@audit/shared/projection';
import { readReportEvents } from '@audit/shared/reports';
import { purgeRepository, retentionRepository } from '@audit/shared/retention';
import { tenantProfilesRepository } from '@audit/shared/tenants';
import { allowList, cachedResolve, resolveWithin, secretBox, webhookClient } from '@audit/shared/webhooks';
import { eventsReader } from './adapters/events.reader.js';
import { exportJobRequests } from './adapters/export-job-requests.js';
import { exportJobStore } from './adapters/export-job-store.js';
import { directoryFirst, keyDirectory } from './adapters/key-directory.js';
import { cachedKeyStore } from './adapters/key-store.js';
import { downloadSlots } from './domain/download-slots.js';
import { postgresRateLimiter } from './adapters/rate-limiter.js';
import { webhookStore } from './adapters/webhook-store.js';
import { displayTemplateStore } from './adapters/display-template-store.js';
import { viewerAssets } from './adapters/viewer-assets.js';
import { viewerTokenStore } from './adapters/viewer-token-store.js';
import { registerPurgeMetrics } from './adapters/purge.metrics.js';
import { buildApp } from './app.js';
import type { GatewayConfig } from './config.js';
import { TARGET_RESOLVE_MS } from './routes/webhooks.route.js';

/** The gateway: the public API. */
export async function gatewayService(host: ServiceHost, config: GatewayConfig): Promise<void> {
  const { logger } = host;
  // The gateway writes audit events of its own (audit.export) through the same path as every producer, and the
  // request records of export jobs.
  const { topics, producer, admin, connect, auditLog } = host.kafka(config.kafka);
  const clickhouse = host.clickhouse(config.clickhouse);
  // Bounded waits: a slow or unreachable Postgres answers 503 instead of holding requests.
  const pool = host.postgres({
    connectionString: config.databaseUrl,
    max: 10,
    connectionTimeoutMillis: 2000,
    query_timeout: 2000,
  });
  // Proofs read many hashes: a pool of their own, with a server-side statement timeout, so that a costly proof
  // never holds the connections authentication and rate limits need (docs/integrity.md "Window proofs").
  const proofs = host.postgres({
    connectionString: config.databaseUrl,
    max: 4,
    connectionTimeoutMillis: 2000,
    statement_timeout: config.proofStatementTimeoutMs,
    query_timeout: config.proofStatementTimeoutMs + 1000,
  });
  // Downloads read through sockets of their own: slow readers can take them all, never the existence checks'.
  const files = exportFiles(config.exportStorage);
  const downloadFiles = exportFiles(config.exportStorage, {
    sockets: config.downloads.perProcess,
    requestTimeoutMs: 30_000,
  });
  const keys = cachedKeyStore(pool, { ttlMs: config.keyCacheTtlMs, maxKeys: 100_000, maxUnknown: 10_000 });
  const directory = keyDirectory({ databaseUrl: config.databaseUrl, logger, changed: keys.forget });
  host.onStop(() => directory.stop());
  const targets = {
    allowHttp: config.webhooks.allowHttp,
    allowed: allowList(config.webhooks.allowCidrs),
    ports: config.webhooks.allowPorts,
    // The cached resolver the dispatcher uses (c-ares for what the DNS servers answer, the system lookup only for
    // names they do not know), and an answer within 2 s or a refusal: a client waits on it.
    resolve: resolveWithin(cachedResolve({ timeoutMs: TARGET_RESOLVE_MS }), TARGET_RESOLVE_MS),
  };
  // Test sends go out through the dispatcher's guarded client, under the rules endpoints are created with. A test
  // is someone checking their receiver, rarely more than one at a time per endpoint: few connections each.
  const testSender = webhookClient({
    timeoutMs: config.webhooks.testTimeoutMs,
    rules: targets,
    resolve: targets.resolve,
    connectionsPerEndpoint: 2,
  });
  host.onStop(() => testSender.close());
  // Its own listener: the public port must not expose internal metrics (see config.ts).
  await host.serveInternal(config.metrics);
  registerPurgeMetrics(host.metrics, purgeRepository(pool), logger, systemClock);
  // The live generation's tables, asked once a second at most, for the list and the reports alike.
  const live = liveTables(projectionStateStore(clickhouse), filterIndexState(clickhouse));
  const app = await buildApp({
    logger,
    metrics: host.metrics,
    trustedProxies: config.trustedProxies,
    limits: config.limits,
    authFailures: config.authFailures,
    takeToken: postgresRateLimiter(pool),
    auth: {
      pepper: config.apiKeyPepper,
      env: config.apiKeyEnv,
      findKey: directoryFirst(directory, keys.find),
    },
    // A throttled address may still use a key that exists: looked up as any key (one query per prefix per TTL at
    // most, so revocation still applies within 5 s), but only for a prefix known without asking Postgres.
    knownKey: async (prefix) => (keys.seen(prefix) || directory.exists(prefix) ? keys.find(prefix) : null),
    events: eventsReader(clickhouse, live),
    reportEvents: async (tenantId, filters) => readReportEvents(clickhouse, await live(), tenantId, filters),
    tenantName: (tenantId) => tenantProfilesRepository.displayName(pool, tenantId),
    cursorSecret: config.cursorSecret,
    // Bounded like ingest: during a Kafka outage an export fails with 503 quickly instead of queueing.
    auditLog: auditLog({ maxQueuedBytes: 16 * 1024 * 1024, maxWaitMs: config.auditTimeoutMs }),
    auditTimeoutMs: config.auditTimeoutMs,
    exportConcurrency: config.exportConcurrency,
    exportJobs: exportJobStore(pool),
    integrity: integrityStore(proofs),
    windowProofMaxHashes: config.windowProofMaxHashes,
    // Bounded as the audit events: a job whose record Kafka does not take in time is answered 503 and rolled back.
    exportJobRequests: exportJobRequests(producer, topics.exportJobs.name, config.auditTimeoutMs),
    exportJobLimits: config.exportJobLimits,
    replayLimits: config.replayLimits,
    exportFiles: { size: files.size, read: downloadFiles.read },
    downloads: downloadSlots(config.downloads),
    minRate: config.downloadMinRate,
    webhooks: webhookStore(pool, secretBox(Buffer.from(config.webhooks.secretKey, 'hex'))),
    targets,
    testSender,
    viewerTokens: viewerTokenStore(pool),
    displayTemplates: displayTemplateStore(pool),
    retention: retentionRepository(pool),
    purges: purgeRepository(pool),
    viewer: viewerAssets(),
    ...(config.viewerOrigin ? { viewerOrigin: config.viewerOrigin } : {}),
    clock: systemClock,
    startup: host.startup,
    readiness: {
      postgres: () => pool.query('SELECT 1'),
      clickhouse: () => clickhouseReady(clickhouse),
      kafka: () => admin.describeCluster(),
    },
  });
  // Closed first: requests in flight finish before the clients they use are closed.
  await host.listen(app, config);
  await host.step('postgres', () => checkPostgresSchema(pool));
  // After the migrations: the table it reads and the trigger that announces changes exist.
  directory.start();
  // It reads with a read-only user: the projector and `ops migrate` apply the migrations it waits for.
  await host.step('clickhouse', () => checkClickHouseSchema(config.clickhouse));
  await connect();
  host.finish();
}
