import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceHost, type ServiceHost } from '@audit/shared/host';
import { createLogger } from '@audit/shared/platform';
import { loadConfig as custodianConfig } from '../../services/custodian/src/config.js';
import { custodianService } from '../../services/custodian/src/custodian.service.js';
import { loadConfig as dispatcherConfig } from '../../services/dispatcher/src/config.js';
import { dispatcherService } from '../../services/dispatcher/src/dispatcher.service.js';
import { loadConfig as exporterConfig } from '../../services/exporter/src/config.js';
import { exporterService } from '../../services/exporter/src/exporter.service.js';
import { loadConfig as gatewayConfig } from '../../services/gateway/src/config.js';
import { gatewayService } from '../../services/gateway/src/gateway.service.js';
import { loadConfig as ingestConfig } from '../../services/ingest/src/config.js';
import { ingestService } from '../../services/ingest/src/ingest.service.js';
import { loadConfig as notaryConfig } from '../../services/notary/src/config.js';
import { notaryService } from '../../services/notary/src/notary.service.js';
import { loadConfig as projectorConfig } from '../../services/projector/src/config.js';
import { projectorService } from '../../services/projector/src/projector.service.js';
import { ingest, makeEvent } from '../support/events.js';
import { uniqueNames } from '../support/names.js';
import { mintKey } from '../support/ops-cli.js';
import { migratedPostgres } from '../support/postgres.js';
import {
  cleanUp,
  exportDir,
  LOOPBACK_TARGETS,
  READER_USER,
  serviceEnv,
  TEST_WEBHOOK_SECRET_KEY,
} from '../support/stack.js';
import { unusedPort } from '../support/tcp-forwarder.js';
import { waitFor } from '../support/wait-for.js';

// Every service run as a function of a host in this test's process (docs/architecture.md "Service host"): the
// same code main.ts runs, started, used and stopped without a process of its own.
const names = uniqueNames('hosts');
const PEPPER = 'hosts-pepper-0123456789abcdef0123456789';
const keyDir = mkdtempSync(join(tmpdir(), 'integrity-keys-'));
const logger = createLogger('test', 'silent');
let postgres: Awaited<ReturnType<typeof migratedPostgres>>;
const hosts: ServiceHost[] = [];

beforeAll(async () => {
  postgres = await migratedPostgres(names);
});
afterAll(async () => {
  for (const host of hosts.reverse()) await host.stop();
  await postgres?.drop();
  await cleanUp(names, [`dispatcher-${names.id}`, `dispatcher-${names.id}-retries`, `exporter-${names.id}`]);
  rmSync(keyDir, { recursive: true, force: true });
  rmSync(exportDir(names), { recursive: true, force: true });
});

/** A host of the test's, whose fatal end fails the test instead of ending the process. */
function hostOf(name: string): ServiceHost {
  const host = createServiceHost({
    name,
    logLevel: 'silent',
    logger,
    exit: (code) => {
      throw new Error(`${name} would have exited with ${code}`);
    },
  });
  hosts.push(host);
  return host;
}

async function readyAt(port: number) {
  await waitFor(
    `:${port}/readyz`,
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200,
  );
}

describe('services run in hosts of their own, in one process', () => {
  it('start, serve an event from ingest to the public API, and stop', async () => {
    const [
      ingestPort,
      projectorPort,
      gatewayPort,
      metricsPort,
      dispatcherPort,
      exporterPort,
      notaryPort,
      custodianPort,
    ] = await Promise.all(Array.from({ length: 8 }, () => unusedPort()));
    const env = (extra: Record<string, string>) =>
      serviceEnv(names, { DATABASE_URL: postgres.url, ...extra });
    const services = [
      ingestService(hostOf('ingest'), ingestConfig(env({ INGEST_PORT: String(ingestPort) }))),
      projectorService(hostOf('projector'), projectorConfig(env({ PROJECTOR_PORT: String(projectorPort) }))),
      gatewayService(
        hostOf('gateway'),
        gatewayConfig(
          env({
            GATEWAY_PORT: String(gatewayPort),
            GATEWAY_METRICS_PORT: String(metricsPort),
            API_KEY_PEPPER: PEPPER,
            CURSOR_SECRET: 'hosts-cursor-0123456789abcdef0123456789',
            WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
            CLICKHOUSE_USER: READER_USER,
          }),
        ),
      ),
      dispatcherService(
        hostOf('dispatcher'),
        dispatcherConfig(
          env({
            DISPATCHER_PORT: String(dispatcherPort),
            DISPATCHER_GROUP_ID: `dispatcher-${names.id}`,
            WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
            ...LOOPBACK_TARGETS,
          }),
        ),
      ),
      exporterService(
        hostOf('exporter'),
        exporterConfig(
          env({
            EXPORTER_PORT: String(exporterPort),
            EXPORTER_GROUP_ID: `exporter-${names.id}`,
            EXPORT_DIR: exportDir(names),
            CLICKHOUSE_USER: READER_USER,
          }),
        ),
      ),
      notaryService(
        hostOf('notary'),
        notaryConfig(env({ NOTARY_PORT: String(notaryPort), INTEGRITY_KEY_DIR: keyDir })),
      ),
      custodianService(
        hostOf('custodian'),
        custodianConfig(env({ CUSTODIAN_PORT: String(custodianPort), EXPORT_DIR: exportDir(names) })),
      ),
    ];
    await Promise.all(services);
    for (const port of [
      ingestPort,
      projectorPort,
      gatewayPort,
      dispatcherPort,
      exporterPort,
      notaryPort,
      custodianPort,
    ])
      await readyAt(port!);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);

    const event = makeEvent(names.tenant, 0);
    expect((await ingest(`http://127.0.0.1:${ingestPort}`, names.ingestToken, [event])).status).toBe(202);
    const key = await mintKey({
      databaseUrl: postgres.url,
      topicPrefix: names.topicPrefix,
      pepper: PEPPER,
      tenant: names.tenant,
      scopes: 'audit:read',
    });
    // The key's minting is in the tenant's trail too: the event is looked for among what the list gives.
    const listed = await waitFor('the event through the public API', async () => {
      const res = await fetch(`http://127.0.0.1:${gatewayPort}/api/v2/public/audit/events`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await res.json()) as { events: { event_id: string; action: string }[] };
      return body.events.find((e) => e.event_id === event.event_id);
    });
    expect(listed.action).toBe(event.action);

    for (const host of hosts.splice(0).reverse()) await host.stop();
    await expect(fetch(`http://127.0.0.1:${ingestPort}/healthz`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${gatewayPort}/healthz`)).rejects.toThrow();
  });
});
