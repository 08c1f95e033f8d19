import pg from 'pg';
import type { TestNames } from './names.js';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://audit:audit@127.0.0.1:55432/audit';

async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A database of the test's own (names are generated, never user input), dropped by `drop`. */
export async function freshPostgres(names: TestNames) {
  const database = names.database.toLowerCase();
  await adminQuery(`CREATE DATABASE ${database}`);
  return {
    url: DATABASE_URL.replace(/\/[^/]+$/, `/${database}`),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${database}`),
  };
}
