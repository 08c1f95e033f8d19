import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { topicGeneration } from '@audit/shared/audit-topic';
import { allTopics, topics } from '@audit/shared/contract';
import { dropClickHouseDatabase, migrateClickHouse, type DatabaseService } from '@audit/shared/migrations';
import {
  clusterGuard,
  createClickHouse,
  localTable,
  schemaWriter,
  type ClickHouseClient,
  deleteTopics,
  type ClickHouseSettings,
} from '@audit/shared/platform';
import type { TestNames } from './names.js';
import { DATABASE_URL, ensureServiceLogins, serviceLoginUrl } from './postgres.js';
import { ServiceProcess } from './service-process.js';

// The local stack's defaults (infra/local/stack.sh); CI and developers run the same.
export const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:15092';
export const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:15123';
// Set by the cluster tier (scripts/test-cluster.sh): the tests' tables are then sharded and replicated, and the
// services they start inherit it from the environment.
const CLICKHOUSE_CLUSTER = process.env.CLICKHOUSE_CLUSTER || undefined;
/** The local tables that stand behind these sharded tables on the tier's cluster; none on one server. */
export const localTablesOf = (sharded: readonly string[]) =>
  CLICKHOUSE_CLUSTER ? sharded.map(localTable) : [];
/** What a CLI run in-process with an environment of its own must be told of the tier's cluster. */
export const CLUSTER_ENV: Record<string, string> = {
  ...(CLICKHOUSE_CLUSTER && { CLICKHOUSE_CLUSTER }),
  // Every node, where a purge deletes (docs/retention.md "On a cluster").
  ...(process.env.CLICKHOUSE_NODE_URLS && { CLICKHOUSE_NODE_URLS: process.env.CLICKHOUSE_NODE_URLS }),
  ...(process.env.KAFKA_REPLICATION_FACTOR && {
    KAFKA_REPLICATION_FACTOR: process.env.KAFKA_REPLICATION_FACTOR,
  }),
};

// Service ports are counted up from a random start in a run's own range (below Linux's ephemeral ports), so that
// runs side by side do not meet: the containers tier sets AUDIT_TEST_PORT_BASE to another range than the default's
// (scripts/test-containers.sh).
let nextPort = Number(process.env.AUDIT_TEST_PORT_BASE || 18_100) + Math.floor(Math.random() * 500) * 4;

export function clickhouseSettings(names: TestNames): ClickHouseSettings {
  return {
    url: CLICKHOUSE_URL,
    database: names.database,
    user: 'default',
    password: '',
    ...(CLICKHOUSE_CLUSTER ? { cluster: CLICKHOUSE_CLUSTER } : {}),
  };
}

export function testKafka(): Kafka {
  return new Kafka({
    clientId: 'audit-tests',
    brokers: KAFKA_BROKERS.split(','),
    logLevel: logLevel.NOTHING,
  });
}

export function serviceEnv(names: TestNames, extra: Record<string, string> = {}): Record<string, string> {
  return {
    TEST_ID: names.id,
    LOG_LEVEL: 'info',
    KAFKA_BROKERS,
    CLICKHOUSE_URL,
    CLICKHOUSE_DATABASE: names.database,
    TOPIC_PREFIX: names.topicPrefix,
    INGEST_TOKEN: names.ingestToken,
    PROJECTOR_GROUP_ID: names.groupId,
    ...extra,
  };
}

/** The service's environment with its database reached through its own role's test login. */
function loggedIn(service: DatabaseService, env: Record<string, string>): Record<string, string> {
  return { ...env, DATABASE_URL: serviceLoginUrl(env.DATABASE_URL ?? DATABASE_URL, service) };
}

/** A service that uses Postgres, logged in as its role (loggedIn), its test login made before it starts. */
function databaseService(service: DatabaseService, env: Record<string, string>, port: number) {
  return new ServiceProcess(service, loggedIn(service, env), port, port, ensureServiceLogins);
}

export function ingestService(names: TestNames, extra: Record<string, string> = {}) {
  const port = nextPort++;
  return new ServiceProcess('ingest', serviceEnv(names, { INGEST_PORT: String(port), ...extra }), port);
}

/**
 * The projector on the test's topics and database. Its trees are off unless the test turns them on with a
 * Postgres database of its own (DATABASE_URL): the default database is nobody's to write.
 */
export function projectorService(names: TestNames, extra: Record<string, string> = {}) {
  const port = nextPort++;
  const env = { PROJECTOR_PORT: String(port), PROJECTOR_TREES: 'false', ...extra };
  return databaseService('projector', serviceEnv(names, env), port);
}

/** Webhook receivers of tests and benchmarks live on loopback: only that range is opened, every other stays refused. */
export const LOOPBACK_TARGETS = { WEBHOOK_ALLOW_TARGET_CIDRS: '127.0.0.0/8', WEBHOOK_ALLOW_HTTP: 'true' };

/** The dispatcher on the test's topics, Postgres database and own consumer groups. */
export function dispatcherService(names: TestNames, databaseUrl: string, extra: Record<string, string> = {}) {
  const port = nextPort++;
  const env = {
    DISPATCHER_PORT: String(port),
    DISPATCHER_GROUP_ID: `dispatcher-${names.id}`,
    DATABASE_URL: databaseUrl,
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
    ...extra,
  };
  return databaseService('dispatcher', serviceEnv(names, env), port);
}

/**
 * The exporter on the test's topics, Postgres database, own consumer group and own directory of files. It reads
 * with the stack's read-only ClickHouse user, as deployed.
 */
export function exporterService(names: TestNames, databaseUrl: string, extra: Record<string, string> = {}) {
  const port = nextPort++;
  const env = {
    EXPORTER_PORT: String(port),
    EXPORTER_GROUP_ID: `exporter-${names.id}`,
    DATABASE_URL: databaseUrl,
    EXPORT_DIR: exportDir(names),
    CLICKHOUSE_USER: READER_USER,
    // Ingest and the gateway share this host's clock, and ingest acknowledges only what Kafka has: no margin.
    EXPORT_JOB_SETTLE_MS: '0',
    ...extra,
  };
  return databaseService('exporter', serviceEnv(names, env), port);
}

/** The notary (it signs the trees the projector appends) on the test's Postgres database. */
export function notaryService(names: TestNames, databaseUrl: string, extra: Record<string, string> = {}) {
  const port = nextPort++;
  const env = {
    NOTARY_PORT: String(port),
    DATABASE_URL: databaseUrl,
    ...extra,
  };
  return databaseService('notary', serviceEnv(names, env), port);
}

/**
 * The custodian (it runs the tenants' purges on a schedule) on the test's topics, Postgres database and export
 * files, with the stack's writing ClickHouse user, as deployed.
 */
export function custodianService(names: TestNames, databaseUrl: string, extra: Record<string, string> = {}) {
  const port = nextPort++;
  const env = {
    CUSTODIAN_PORT: String(port),
    DATABASE_URL: databaseUrl,
    EXPORT_DIR: exportDir(names),
    ...extra,
  };
  return databaseService('custodian', serviceEnv(names, env), port);
}

/** Where a test's export files live: under .data, removed by the test that made it. */
export const exportDir = (names: TestNames) =>
  fileURLToPath(new URL(`../../.data/test-exports/${names.id}`, import.meta.url));

/** Seals webhook secrets in tests; a test that checks sealing reads it from here. */
export const TEST_WEBHOOK_SECRET_KEY = '5e'.repeat(32);

/** The gateway serves its metrics on a listener of its own: each process gets its own port for it. */
export function gatewayService(names: TestNames, extra: Record<string, string> = {}) {
  const port = nextPort++;
  const metricsPort = nextPort++;
  const env = {
    GATEWAY_PORT: String(port),
    GATEWAY_METRICS_PORT: String(metricsPort),
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
    // As deployed: it reads with the stack's read-only user and waits for the schema someone else migrates.
    CLICKHOUSE_USER: READER_USER,
    ...extra,
  };
  // Its test login, and the ClickHouse schema it waits for and cannot make.
  const prepared = async () => {
    await ensureServiceLogins();
    await migrateClickHouse(clickhouseSettings(names));
  };
  return new ServiceProcess(
    'gateway',
    loggedIn('gateway', serviceEnv(names, env)),
    port,
    metricsPort,
    prepared,
  );
}

/** The local stack's read-only ClickHouse user (infra/local/clickhouse/users.xml). */
export const READER_USER = 'audit_reader';

export function testClickHouse(names: TestNames) {
  return createClickHouse(clickhouseSettings(names));
}

/** DDL as the services run it: on the cluster of the tier, if any (docs/operations.md "ClickHouse cluster"). */
export const testSchema = (names: TestNames, client: ClickHouseClient) =>
  schemaWriter(client, clickhouseSettings(names));

/** What the projector writes and reads with on the tier's ClickHouse: quorum inserts on a cluster. */
export const testGuard = (client: ClickHouseClient) => clusterGuard(client, CLICKHOUSE_CLUSTER);

/** Drops the test's database and topics, and the consumer groups given (those that may be left, if any). */
export async function cleanUp(names: TestNames, groups: readonly string[] = []): Promise<void> {
  await dropClickHouseDatabase(clickhouseSettings(names));
  const kafka = testKafka();
  if (groups.length > 0) {
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteGroups([...groups]).catch(() => undefined);
    await admin.disconnect();
  }
  const t = topics(names.topicPrefix, 1);
  // With the generations a growth of the audit topic made (docs/topic-growth.md).
  const admin = kafka.admin();
  await admin.connect();
  const grown = (await admin.listTopics().finally(() => admin.disconnect())).filter(
    (topic) => (topicGeneration(t.auditEvents.name, topic) ?? 1) > 1,
  );
  await deleteTopics(kafka, [...allTopics(t).map((s) => s.name), ...grown]);
}
