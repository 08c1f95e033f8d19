import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { MIGRATIONS_DIR } from '@audit/shared/migrations';
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
