import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topics } from '@audit/shared/contract';
import { ingest, makeEvent } from '../support/events.js';
import { topicEndOffset } from '../support/kafka-offsets.js';
import { uniqueNames } from '../support/names.js';
import { mintKey } from '../support/ops-cli.js';
import { migratePostgres } from '@audit/shared/migrations';
import { ensureServiceLogins, freshPostgres, migratedPostgres } from '../support/postgres.js';
import type { ServiceProcess } from '../support/service-process.js';
import {
  cleanUp,
  custodianService,
  dispatcherService,
  gatewayService,
  CLICKHOUSE_URL,
  notaryService,
  ingestService,
  KAFKA_BROKERS,
  projectorService,
  testKafka,
} from '../support/stack.js';
import { lateForwarder, unusedPort } from '../support/tcp-forwarder.js';

// Each dependency comes up late through a forwarder on a port of its own: the shared components stay up for the
// other test files, and nothing waits for a component to stop and start.
const names = uniqueNames('startup');
const SECRETS = {
  API_KEY_PEPPER: 'startup-pepper-0123456789abcdef0123456',
  CURSOR_SECRET: 'startup-cursor-0123456789abcdef0123456',
};
const kafka = testKafka();
const auditTopic = topics(names.topicPrefix, 1).auditEvents.name;
const [kafkaHost, kafkaPort] = KAFKA_BROKERS.split(',')[0]!.split(':') as [string, string];
let postgres: Awaited<ReturnType<typeof migratedPostgres>>;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  postgres = await migratedPostgres(names);
  // The services below are launched without waiting for their readiness, which would make their logins first.
  await ensureServiceLogins();
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await postgres?.drop();
  await cleanUp(names);
});

/** The test's Postgres database, reached through `port`. */
function postgresVia(port: number): string {
  const url = new URL(postgres.url);
  url.port = String(port);
  return url.toString();
}

/** A dependency that answers only once `open()` is called; closed after the file's services stopped. */
async function late(target: { host: string; port: number }) {
  const forwarder = await lateForwarder(target);
  cleanups.push(() => forwarder.close());
  return forwarder;
}

function track(service: ServiceProcess): ServiceProcess {
  cleanups.push(() => service.stop());
  return service;
}

/** It tried the dependency, failed, and lives on: logged by untilAvailable after a failed attempt. */
const failedOnce = (service: ServiceProcess, dependency: string) =>
  service.waitForLog('waiting for a dependency', (line) => line.dependency === dependency);

async function expectAliveNotReady(service: ServiceProcess, dependency: string) {
  expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  const ready = await fetch(`${service.url}/readyz`);
  expect(ready.status).toBe(503);
  expect(ready.headers.get('retry-after')).toBe('5');
  expect(await ready.json()).toEqual({ status: 'starting', checks: { [dependency]: 'failed' } });
}

function mintReader(): Promise<string> {
  return mintKey({
    databaseUrl: postgres.url,
    topicPrefix: names.topicPrefix,
    pepper: SECRETS.API_KEY_PEPPER,
    tenant: names.tenant,
    scopes: 'audit:read',
  });
}

describe('a service started before its dependencies', () => {
  it('gateway before Postgres: alive and not ready while it waits, then serves a list without a restart', async () => {
    const target = new URL(postgres.url);
    const pgLate = await late({ host: target.hostname, port: Number(target.port) });
    const gateway = track(gatewayService(names, { DATABASE_URL: postgresVia(pgLate.port), ...SECRETS }));
    gateway.launch();
    await failedOnce(gateway, 'postgres');
    await expectAliveNotReady(gateway, 'postgres');
    const early = await fetch(`${gateway.url}/api/v2/public/audit/events`, {
      headers: { authorization: 'Bearer not-checked-yet' },
    });
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('5');
    expect(await early.json()).toMatchObject({ error: 'service_unavailable' });
    const pid = gateway.pid;

    await pgLate.open();
    await gateway.ready();
    expect(gateway.pid).toBe(pid);
    await gateway.waitForLog('dependency available', (line) => line.dependency === 'postgres');
    const key = await mintReader();
    const list = await fetch(`${gateway.url}/api/v2/public/audit/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ events: expect.any(Array) });
  });

  it('ingest before Kafka: alive and not ready while it waits, then accepts events without a restart', async () => {
    const kafkaLate = await late({ host: kafkaHost, port: Number(kafkaPort) });
    // Kafka's metadata names its real address: only the first contact goes through the forwarder.
    const service = track(ingestService(names, { KAFKA_BROKERS: `127.0.0.1:${kafkaLate.port}` }));
    service.launch();
    await failedOnce(service, 'kafka');
    await expectAliveNotReady(service, 'kafka');
    const early = await ingest(service.url, names.ingestToken, [makeEvent(names.tenant, 0)]);
    expect(early.status).toBe(503);
    const pid = service.pid;

    await kafkaLate.open();
    await service.ready();
    expect(service.pid).toBe(pid);
    const before = await topicEndOffset(kafka, auditTopic);
    const events = [makeEvent(names.tenant, 1), makeEvent(names.tenant, 2)];
    expect(await ingest(service.url, names.ingestToken, events)).toMatchObject({
      status: 202,
      body: { accepted: 2 },
    });
    expect(await topicEndOffset(kafka, auditTopic)).toBe(before + 2);
  });

  it('dispatcher before Postgres: alive and not ready while it waits, then joins its groups without a restart', async () => {
    const target = new URL(postgres.url);
    const pgLate = await late({ host: target.hostname, port: Number(target.port) });
    const service = track(dispatcherService(names, postgresVia(pgLate.port)));
    service.launch();
    await failedOnce(service, 'postgres');
    await expectAliveNotReady(service, 'postgres');
    const pid = service.pid;

    await pgLate.open();
    // Ready means more here: its consumer groups have their partitions.
    await service.ready();
    expect(service.pid).toBe(pid);
    expect(service.logged().some((line) => line.msg === 'started')).toBe(true);
  });

  it('projector before ClickHouse: alive and not ready while it waits, then projects without a restart', async () => {
    const target = new URL(CLICKHOUSE_URL);
    const chLate = await late({ host: target.hostname, port: Number(target.port) });
    const service = track(projectorService(names, { CLICKHOUSE_URL: `http://127.0.0.1:${chLate.port}` }));
    service.launch();
    await failedOnce(service, 'clickhouse');
    await expectAliveNotReady(service, 'clickhouse');
    const pid = service.pid;

    await chLate.open();
    await service.ready();
    expect(service.pid).toBe(pid);
    expect(service.logged().some((line) => line.msg === 'projector running')).toBe(true);
  });

  it('notary and custodian before their schema: not ready until `ops migrate` applied it, then ready without a restart', async () => {
    // No service migrates Postgres (its role cannot): it waits for the schema it was built for.
    const unmigrated = await freshPostgres({ ...names, database: `${names.database}_late` });
    cleanups.push(() => unmigrated.drop());
    const services = [
      track(notaryService(names, unmigrated.url)),
      track(custodianService(names, unmigrated.url)),
    ];
    for (const service of services) service.launch();
    const pids = [];
    for (const service of services) {
      await failedOnce(service, 'postgres');
      await expectAliveNotReady(service, 'postgres');
      pids.push(service.pid);
    }

    await migratePostgres(unmigrated.url);
    for (const service of services) await service.ready();
    expect(services.map((service) => service.pid)).toEqual(pids);
    for (const service of services) {
      await service.waitForLog('dependency available', (line) => line.dependency === 'postgres');
    }
  });

  it('a signal during the wait ends the process through its shutdown, with exit code 0', async () => {
    const nothing = await unusedPort();
    const gateway = track(gatewayService(names, { DATABASE_URL: postgresVia(nothing), ...SECRETS }));
    gateway.launch();
    await failedOnce(gateway, 'postgres');
    expect(await gateway.stop('SIGTERM')).toBe(0);
    expect(gateway.logged().some((line) => line.msg === 'shutting down')).toBe(true);

    // Stopped in the middle of its first attempt to reach Kafka, with the producer still connecting.
    const service = track(ingestService(names, { KAFKA_BROKERS: `127.0.0.1:${nothing}` }));
    service.launch();
    await service.waitForLog('ingest listening');
    await expectAliveNotReady(service, 'kafka');
    expect(await service.stop('SIGINT')).toBe(0);

    const projector = track(projectorService(names, { KAFKA_BROKERS: `127.0.0.1:${nothing}` }));
    projector.launch();
    await failedOnce(projector, 'kafka');
    await expectAliveNotReady(projector, 'kafka');
    expect(await projector.stop('SIGTERM')).toBe(0);
  });
});
