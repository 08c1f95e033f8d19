import pg from 'pg';
import { checkApplied, loadMigrations, MIGRATIONS_DIR } from './migration-files.js';
import type { MigrationReport } from './clickhouse.migrator.js';

// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK = 7_114_202_611;

/** Each migration runs in its own transaction, under an advisory lock so concurrent starts migrate once. */
export async function migratePostgres(
  databaseUrl: string,
  dir: URL = new URL('postgres/', MIGRATIONS_DIR),
): Promise<MigrationReport> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number; checksum: string }>(
      'SELECT version, checksum FROM schema_migrations',
    );
    const pending = checkApplied(loadMigrations(dir), new Map(rows.map((r) => [r.version, r.checksum])));
    for (const m of pending) {
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          m.checksum,
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    }
    return { applied: pending.map((m) => `${m.version}_${m.name}`) };
  } finally {
    await client.end();
  }
}
