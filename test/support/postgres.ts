import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import {
  DATABASE_SERVICES,
  MIGRATIONS_DIR,
  migratePostgres,
  serviceRole,
  type DatabaseService,
} from '@audit/shared/migrations';
import type { TestNames } from './names.js';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://audit:audit@127.0.0.1:15432/audit';

async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The URL of the test's own database (freshPostgres), known before the database is made. */
export const postgresUrlOf = (names: TestNames) =>
  DATABASE_URL.replace(/\/[^/]+$/, `/${names.database.toLowerCase()}`);

/** A database of the test's own (names are generated, never user input), dropped by `drop`. */
export async function freshPostgres(names: TestNames) {
  await adminQuery(`CREATE DATABASE ${names.database.toLowerCase()}`);
  return { url: postgresUrlOf(names), drop: () => dropPostgres(names) };
}

/** A database of the test's own with the current schema, as `ops migrate` leaves it before any service starts. */
export async function migratedPostgres(names: TestNames) {
  const made = await freshPostgres(names);
  await migratePostgres(made.url);
  return made;
}

// The tests' service processes log in as a member of their service's role (docs/operations.md "Database roles"):
// a login of the tests' own, so that the roles' own passwords, which `npm start` sets, are never touched.
const TEST_LOGIN_PASSWORD = 'test-login-0123456789abcdef';
/** The login the tests' processes of the service use. */
export const serviceLogin = (service: DatabaseService) => `${serviceRole(service)}_test`;

/** `url` (a test's database) as the service's test login reaches it. */
export function serviceLoginUrl(url: string, service: DatabaseService): string {
  const parsed = new URL(url);
  parsed.username = serviceLogin(service);
  parsed.password = TEST_LOGIN_PASSWORD;
  return parsed.toString();
}

/**
 * The default database migrated (the roles are made with it, for the whole server), and each service's test
 * login, a member of its role: what a test's or a benchmark's service processes need before they start.
 */
async function prepareServiceLogins(): Promise<void> {
  await migratePostgres(DATABASE_URL);
  for (const service of DATABASE_SERVICES) {
    const login = serviceLogin(service);
    // Another run may make it at the same moment: whichever comes second finds it made.
    await adminQuery(`DO $$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${login}') THEN
        CREATE ROLE ${login} LOGIN PASSWORD '${TEST_LOGIN_PASSWORD}' IN ROLE ${serviceRole(service)};
      END IF;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END $$`);
  }
}

let logins: Promise<void> | undefined;
/** prepareServiceLogins, once per module instance (each test file has its own). */
export const ensureServiceLogins = (): Promise<void> => (logins ??= prepareServiceLogins());

/** Drops the test's own database (freshPostgres), if it is there. */
export const dropPostgres = (names: TestNames) =>
  adminQuery(`DROP DATABASE IF EXISTS ${names.database.toLowerCase()}`);

/** The Postgres migrations up to `last`, in a directory of their own: a database migrated to an older version. */
export function migrationsUpTo(last: number): URL {
  const from = fileURLToPath(new URL('postgres/', MIGRATIONS_DIR));
  const dir = mkdtempSync(join(tmpdir(), 'pg-migrations-'));
  for (const file of readdirSync(from).filter((f) => /^\d{4}_/.test(f) && Number(f.slice(0, 4)) <= last))
    copyFileSync(join(from, file), join(dir, file));
  return pathToFileURL(`${dir}/`);
}
