import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledApp } from '../support/compiled-app.js';
import { ingest, makeEvent } from '../support/events.js';
import { uniqueNames } from '../support/names.js';
import { migratedPostgres } from '../support/postgres.js';
import type { ServiceProcess } from '../support/service-process.js';
import {
  CLICKHOUSE_URL,
  cleanUp,
  gatewayService,
  ingestService,
  KAFKA_BROKERS,
  projectorService,
} from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const names = uniqueNames('compiled');
const dir = mkdtempSync(`${tmpdir()}/audit-compiled-`);
const PEPPER = 'compiled-pepper-0123456789abcdef0123456789';
const running: ServiceProcess[] = [];
let dropPostgres: (() => Promise<void>) | undefined;

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await dropPostgres?.();
  await cleanUp(names, [names.groupId]);
  rmSync(dir, { recursive: true, force: true });
});

describe('the compiled build, laid out and run as the service image runs it (no tsx, no TypeScript)', () => {
  it('ingests an event, projects it, mints a key with the operator CLI and reads the event back', async () => {
    const app = compiledApp(dir);
    // As `ops migrate` leaves it before the services start.
    const postgres = await migratedPostgres(names);
    dropPostgres = postgres.drop;
    const projector = projectorService(names).runCompiledFrom(app);
    const ingestProc = ingestService(names).runCompiledFrom(app);
    const gateway = gatewayService(names, {
      DATABASE_URL: postgres.url,
      API_KEY_PEPPER: PEPPER,
      CURSOR_SECRET: 'compiled-cursor-0123456789abcdef0123456789',
    }).runCompiledFrom(app);
    for (const service of [projector, ingestProc, gateway]) {
      running.push(service);
      await service.start();
    }

    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--conditions=compiled',
        'services/ops/src/main.js',
        'keys',
        'create',
        '--tenant',
        names.tenant,
        '--scopes',
        'audit:read',
      ],
      {
        cwd: app,
        env: {
          ...process.env,
          DATABASE_URL: postgres.url,
          API_KEY_PEPPER: PEPPER,
          KAFKA_BROKERS,
          CLICKHOUSE_URL,
          CLICKHOUSE_DATABASE: names.database,
          TOPIC_PREFIX: names.topicPrefix,
          LOG_LEVEL: 'error',
        },
      },
    ).catch((err: { stdout?: string; stderr?: string }) => {
      throw new Error(`compiled ops CLI failed: ${err.stderr ?? ''}${err.stdout ?? ''}`);
    });
    const key = /svc_live_[0-9a-f]{8}_[0-9a-f]{32}/.exec(stdout)?.[0];
    expect(key, stdout).toBeDefined();

    const events = [0, 1, 2].map((i) => makeEvent(names.tenant, i));
    expect((await ingest(ingestProc.url, names.ingestToken, events)).status).toBe(202);
    // The list holds the key's own admin.key.create event too.
    const ids = events.map((e) => e.event_id);
    await waitFor('the events through the compiled gateway', async () => {
      const res = await fetch(`${gateway.url}/api/v2/public/audit/events`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const listed = new Set(
        ((await res.json()) as { events?: { event_id: string }[] }).events?.map((e) => e.event_id),
      );
      return ids.every((id) => listed.has(id));
    });
  });
});
