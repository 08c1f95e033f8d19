import pg from 'pg';
import { checkApplied, loadMigrations, MIGRATIONS_DIR } from './migration-files.js';
import type { MigrationReport } from './clickhouse.migrator.js';

// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK = 7_114_202_611;

/**
 * Each migration runs in its own transaction, under an advisory lock so concurrent runs migrate once. Only the
 * schema's owner migrates (`ops migrate`): the services' roles cannot create objects (docs/operations.md
 * "Database roles").
 */
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

export class PostgresSchemaBehindError extends Error {
  override name = 'PostgresSchemaBehindError';
}

/**
 * Throws until every migration has been applied (by `ops migrate`), with the checksums these files have: a
 * service starts only on the schema it was built for, which its role could not create.
 */
export async function checkPostgresSchema(
  db: Pick<pg.ClientBase, 'query'>,
  dir: URL = new URL('postgres/', MIGRATIONS_DIR),
): Promise<void> {
  const { rows } = await db
    .query<{ version: number; checksum: string }>('SELECT version, checksum FROM schema_migrations')
    .catch((err: unknown) => {
      // undefined_table: nothing has been migrated at all.
      if ((err as { code?: string }).code === '42P01') return { rows: [] };
      throw err;
    });
  const pending = checkApplied(loadMigrations(dir), new Map(rows.map((r) => [r.version, r.checksum])));
  if (pending.length > 0) {
    const names = pending.map((m) => `${String(m.version).padStart(4, '0')}_${m.name}.sql`).join(', ');
    throw new PostgresSchemaBehindError(
      `Postgres migrations not applied yet: ${names} (\`ops migrate\` applies them)`,
    );
  }
}
