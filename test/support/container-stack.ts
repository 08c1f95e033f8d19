import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { GenericContainer, getContainerRuntimeClient } from 'testcontainers';
import { unusedPort } from './tcp-forwarder.js';

// Kafka, ClickHouse, Postgres and S3Proxy in containers, for machines without the local stack's tools
// (docs/testing.md "Components"). The images are the upstream ones docker-compose.yml names, unless the environment names others
// (our machines pass those infra/containers/build-images.sh made). Each container publishes a fixed free port, so
// that an outage test's stop and start keeps every address.

export type Component = 'postgres' | 'clickhouse' | 'kafka' | 's3proxy';

export const UPSTREAM_IMAGES: Record<Component, string> = {
  kafka: 'apache/kafka:3.9.1',
  clickhouse: 'clickhouse/clickhouse-server:25.8',
  postgres: 'postgres:15.14-bookworm',
  s3proxy: 'andrewgaul/s3proxy:4.1.1',
};

const IMAGE_VARIABLES: Record<Component, string> = {
  kafka: 'KAFKA_IMAGE',
  clickhouse: 'CLICKHOUSE_IMAGE',
  postgres: 'POSTGRES_IMAGE',
  s3proxy: 'S3PROXY_IMAGE',
};

export function containerImages(env: NodeJS.ProcessEnv): Record<Component, string> {
  const image = (c: Component) => env[IMAGE_VARIABLES[c]] || UPSTREAM_IMAGES[c];
  return {
    kafka: image('kafka'),
    clickhouse: image('clickhouse'),
    postgres: image('postgres'),
    s3proxy: image('s3proxy'),
  };
}

/** What the tests and the services read to find the components: the same variables `stack.sh env` prints. */
export interface ComponentEnv {
  KAFKA_BROKERS: string;
  CLICKHOUSE_URL: string;
  DATABASE_URL: string;
  GATEWAY_CLICKHOUSE_USER: string;
  EXPORT_S3_ENDPOINT: string;
  EXPORT_S3_BUCKET: string;
  EXPORT_S3_ACCESS_KEY_ID: string;
  EXPORT_S3_SECRET_ACCESS_KEY: string;
}

// The local stack's S3 key (infra/local/lib/s3proxy.sh): fixed, for tests only.
const S3_KEY = { id: 'audit', secret: 'audit-local-secret-0123456789' };

// infra/local/kafka/server.properties' settings, as the upstream image takes them.
function kafkaSettings(port: number): Record<string, string> {
  return {
    KAFKA_NODE_ID: '1',
    KAFKA_PROCESS_ROLES: 'broker,controller',
    KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093',
    KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`,
    KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
    KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
    KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
    KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '10',
    KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
    KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
    KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS: '10',
    KAFKA_MIN_INSYNC_REPLICAS: '1',
    KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
    KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
    KAFKA_NUM_PARTITIONS: '1',
    KAFKA_LOG_RETENTION_HOURS: '-1',
    KAFKA_HEAP_OPTS: '-Xms512m -Xmx512m',
  };
}

const CLICKHOUSE_USERS = readFileSync(
  new URL('../../infra/containers/test/clickhouse-users.xml', import.meta.url),
  'utf8',
);

const RUN_LABEL = 'audit-trail.test-run';
const OWNER_LABEL = 'audit-trail.test-owner';

const SERVED_PORT: Record<Component, number> = { kafka: 9092, clickhouse: 8123, postgres: 5432, s3proxy: 80 };

/**
 * The ports to publish: the one the tests use on the fixed host port, and every other port the image exposes on
 * a random one. Podman lists an exposed port that is not published as an unbound binding, and testcontainers
 * then waits for its binding until it gives up.
 */
async function publishedPorts(component: Component, image: string, port: number) {
  const { dockerode } = (await getContainerRuntimeClient()).container;
  const exposed = Object.keys((await dockerode.getImage(image).inspect()).Config.ExposedPorts ?? {})
    .filter((p) => p.endsWith('/tcp'))
    .map((p) => Number.parseInt(p, 10))
    .filter((p) => p !== SERVED_PORT[component]);
  return [{ container: SERVED_PORT[component], host: port }, ...exposed];
}

async function definition(component: Component, image: string, port: number, run: string) {
  const container = new GenericContainer(image)
    // The owner's process id lets a later run remove what a killed one left (scripts/components.sh).
    .withLabels({
      [RUN_LABEL]: run,
      [OWNER_LABEL]: String(process.pid),
      'audit-trail.test-component': component,
    })
    .withStartupTimeout(READY_TIMEOUT_MS)
    .withExposedPorts(...(await publishedPorts(component, image, port)));
  switch (component) {
    case 'kafka':
      return container.withEnvironment(kafkaSettings(port));
    case 'clickhouse':
      return container.withEnvironment({ CLICKHOUSE_SKIP_USER_SETUP: '1' }).withCopyContentToContainer([
        {
          content: CLICKHOUSE_USERS,
          target: '/etc/clickhouse-server/users.d/audit-tests.xml',
          mode: 0o644,
        },
      ]);
    case 'postgres':
      return container.withEnvironment({
        POSTGRES_USER: 'audit',
        POSTGRES_PASSWORD: 'audit',
        POSTGRES_DB: 'audit',
      });
    case 's3proxy':
      return container.withEnvironment({
        S3PROXY_AUTHORIZATION: 'aws-v2-or-v4',
        S3PROXY_IDENTITY: S3_KEY.id,
        S3PROXY_CREDENTIAL: S3_KEY.secret,
        S3PROXY_VIRTUALHOST: '',
        JCLOUDS_PROVIDER: 'filesystem',
        JCLOUDS_FILESYSTEM_BASEDIR: '/data',
      });
  }
}

function envOf(ports: Record<Component, number>): ComponentEnv {
  return {
    KAFKA_BROKERS: `127.0.0.1:${ports.kafka}`,
    CLICKHOUSE_URL: `http://127.0.0.1:${ports.clickhouse}`,
    DATABASE_URL: `postgres://audit:audit@127.0.0.1:${ports.postgres}/audit`,
    GATEWAY_CLICKHOUSE_USER: 'audit_reader',
    EXPORT_S3_ENDPOINT: `http://127.0.0.1:${ports.s3proxy}`,
    EXPORT_S3_BUCKET: 'audit-exports',
    EXPORT_S3_ACCESS_KEY_ID: S3_KEY.id,
    EXPORT_S3_SECRET_ACCESS_KEY: S3_KEY.secret,
  };
}

const READY_TIMEOUT_MS = 180_000;

async function answers(component: Component, env: ComponentEnv): Promise<boolean> {
  switch (component) {
    case 'kafka': {
      const admin = new Kafka({
        brokers: [env.KAFKA_BROKERS],
        logLevel: logLevel.NOTHING,
        retry: { retries: 0 },
      }).admin();
      try {
        await admin.connect();
        await admin.listTopics();
        return true;
      } finally {
        await admin.disconnect();
      }
    }
    case 'clickhouse':
      return (await (await fetch(`${env.CLICKHOUSE_URL}/?query=SELECT%201`)).text()).trim() === '1';
    case 'postgres': {
      const client = new pg.Client({ connectionString: env.DATABASE_URL });
      try {
        await client.connect();
        await client.query('SELECT 1');
        return true;
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    case 's3proxy': {
      // Needs no signature; any other path would answer 403 to an unsigned request.
      const res = await fetch(`${env.EXPORT_S3_ENDPOINT}/healthz`);
      if (res.status !== 200) throw new Error(`GET /healthz answered ${res.status}`);
      return true;
    }
  }
}

/** Waits until the component serves what the tests ask of it: a query, not only an open port. */
export async function waitUntilReady(component: Component, env: ComponentEnv): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const error = await answers(component, env).then(
      () => undefined,
      (err: unknown) => err,
    );
    if (error === undefined) return;
    if (Date.now() > deadline)
      throw new Error(`${component} not ready after ${READY_TIMEOUT_MS} ms: ${String(error)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const COMPONENTS: Component[] = ['postgres', 'clickhouse', 'kafka', 's3proxy'];

/** Removes every container of one run, also those whose start failed half-way. */
async function removeRun(run: string): Promise<void> {
  const { dockerode } = (await getContainerRuntimeClient()).container;
  const mine = await dockerode.listContainers({ all: true, filters: { label: [`${RUN_LABEL}=${run}`] } });
  await Promise.all(mine.map((info) => dockerode.getContainer(info.Id).remove({ force: true, v: true })));
}

/**
 * Starts the components, one after the other (three starts at once on two cores left Podman slower than
 * testcontainers waits for a port binding), then waits until each answers; `stop` removes them with their data.
 */
export async function startComponentContainers(images: Record<Component, string>) {
  const run = randomUUID();
  const ports = {
    postgres: await unusedPort(),
    clickhouse: await unusedPort(),
    kafka: await unusedPort(),
    s3proxy: await unusedPort(),
  };
  const env = envOf(ports);
  const ids: Partial<Record<Component, string>> = {};
  try {
    for (const c of COMPONENTS)
      ids[c] = (await (await definition(c, images[c], ports[c], run)).start()).getId();
    await Promise.all(COMPONENTS.map((c) => waitUntilReady(c, env)));
  } catch (err) {
    await removeRun(run);
    throw err;
  }
  return { env, ids: ids as Record<Component, string>, stop: () => removeRun(run) };
}

// A stop is a clean shutdown, as the local stack's: the image's stop signal, SIGKILL after 60 s (testcontainers
// takes milliseconds).
const STOP_TIMEOUT_MS = 60_000;

/** An outage of one component started above: its container stopped, or started again and waited for. */
export async function containerOutageStep<C extends Component>(
  command: 'stop' | 'start',
  component: C,
  ids: Record<C, string>,
  env: ComponentEnv,
): Promise<void> {
  const client = await getContainerRuntimeClient();
  const container = client.container.getById(ids[component]);
  if (command === 'stop') {
    await client.container.stop(container, { timeout: STOP_TIMEOUT_MS });
    return;
  }
  await client.container.start(container);
  await waitUntilReady(component, env);
}

// Where ClickHouse writes its server log, in files rather than on the console: infra/local's config.xml as the image
// built here renders it, and the upstream image's own.
const CLICKHOUSE_LOG_DIR = '/var/log/clickhouse-server';

/**
 * Copies the ClickHouse container's server log folder, as a tar, to `file`: removing the container removes it,
 * and it is what tells what the server did during a failed test (an outage's shutdown and start, an insert's views).
 */
export async function keepClickHouseLog(id: string, file: string): Promise<void> {
  const client = await getContainerRuntimeClient();
  const archive = await client.container.fetchArchive(client.container.getById(id), CLICKHOUSE_LOG_DIR);
  mkdirSync(dirname(file), { recursive: true });
  await pipeline(archive, createWriteStream(file));
}
