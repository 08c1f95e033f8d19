import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { gatewayFixture } from './gateway-fixture.js';
import type { TestNames } from './names.js';
import { dispatcherService, LOOPBACK_TARGETS } from './stack.js';

/** A retry schedule of five equal delays, in milliseconds. */
export const compressedSchedule = (delayMs: number) =>
  Array.from({ length: 5 }, () => `${delayMs}ms`).join(',');

/**
 * A dispatcher process on the gateway fixture's Postgres database, and a client of that database for checks on
 * the rows behind the API. Started after the gateway (which migrated the database), stopped after the tests.
 */
export function dispatcherFixture(
  names: TestNames,
  gw: ReturnType<typeof gatewayFixture>,
  env: Record<string, string>,
) {
  let dispatcher: ReturnType<typeof dispatcherService> | undefined;
  let db: pg.Client | undefined;
  beforeAll(async () => {
    dispatcher = dispatcherService(names, gw.databaseUrl(), { ...LOOPBACK_TARGETS, ...env });
    await dispatcher.start();
    db = new pg.Client({ connectionString: gw.databaseUrl() });
    await db.connect();
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await db?.end();
  });
  return { process: () => dispatcher!, db: () => db! };
}
