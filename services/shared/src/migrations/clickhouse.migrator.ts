import type { ClickHouseSettings } from '../platform/config/components.js';
import { createClickHouse, type ClickHouseClient } from '../platform/clickhouse/clickhouse-client.js';
import { schemaWriter } from '../platform/clickhouse/schema-writer.js';
import { sqlIdentifier, sqlValue } from '../platform/clickhouse/sql-quote.js';
import { ensureEventColumns, ensureFilterIndex } from '../projection/filter-index.state.js';
import { checkApplied, loadMigrations, MIGRATIONS_DIR, splitStatements } from './migration-files.js';

// On a cluster a statement runs ON CLUSTER and its request lasts until every node has applied it, which the server
// waits for up to its `distributed_ddl_task_timeout` (180 s by default): a node still busy with an earlier task, or
// one back from a restart, takes longer than a query's usual 30 s, and a client that gave up first would leave the
// statement running without its successors (a database created after its tables were tried).
const SCHEMA_STATEMENT_MS = 300_000;

export interface MigrationReport {
  applied: string[];
}

/** The migrations of `dir` not recorded in schema_migrations; a recorded one whose file changed throws. */
async function pendingMigrations(client: ClickHouseClient, dir: URL) {
  const rows = await client
    .query({
      query: 'SELECT version, any(checksum) AS checksum FROM schema_migrations GROUP BY version',
      format: 'JSONEachRow',
    })
    .then((r) => r.json<{ version: number; checksum: string }>());
  return checkApplied(loadMigrations(dir), new Map(rows.map((r) => [Number(r.version), r.checksum])));
}

/**
 * ClickHouse has no transactions: every statement is written to be re-runnable (IF NOT EXISTS), so a migration
 * interrupted half way is simply run again. On a cluster each runs ON CLUSTER, rewritten for shards and replicas
 * (docs/operations.md "ClickHouse cluster").
 */
export async function migrateClickHouse(
  settings: ClickHouseSettings,
  dir: URL = new URL('clickhouse/', MIGRATIONS_DIR),
): Promise<MigrationReport> {
  const admin = createClickHouse(settings, 'default', SCHEMA_STATEMENT_MS);
  try {
    await schemaWriter(admin, settings).run(
      `CREATE DATABASE IF NOT EXISTS ${sqlIdentifier(settings.database)}`,
    );
  } finally {
    await admin.close();
  }
  const client = createClickHouse(settings, settings.database, SCHEMA_STATEMENT_MS);
  const schema = schemaWriter(client, settings);
  try {
    await schema.run(`CREATE TABLE IF NOT EXISTS schema_migrations
        (version UInt32, name String, checksum String, applied_at DateTime DEFAULT now())
        ENGINE = MergeTree ORDER BY version`);
    const pending = await pendingMigrations(client, dir);
    for (const m of pending) {
      for (const statement of splitStatements(m.sql)) await schema.run(statement);
      await client.command({
        query: `INSERT INTO schema_migrations (version, name, checksum)
          VALUES (${sqlValue(m.version)}, ${sqlValue(m.name)}, ${sqlValue(m.checksum)})`,
      });
    }
    await ensureEventColumns(client, schema);
    await ensureFilterIndex(client, schema);
    return { applied: pending.map((m) => `${m.version}_${m.name}`) };
  } finally {
    await client.close();
  }
}

/** The ClickHouse schema lacks migrations this code needs: whoever holds write rights has not applied them yet. */
export class ClickHouseSchemaBehindError extends Error {
  override name = 'ClickHouseSchemaBehindError';
}

/**
 * Checks, reading only, that every migration this code knows is applied: the gateway reads with a read-only
 * user and leaves migrating to the projector and `ops migrate` (docs/operations.md "ClickHouse users").
 */
export async function checkClickHouseSchema(
  settings: ClickHouseSettings,
  dir: URL = new URL('clickhouse/', MIGRATIONS_DIR),
): Promise<void> {
  const client = createClickHouse(settings);
  try {
    const pending = await pendingMigrations(client, dir);
    if (pending.length > 0) {
      const names = pending.map((m) => `${String(m.version).padStart(4, '0')}_${m.name}.sql`).join(', ');
      throw new ClickHouseSchemaBehindError(
        `ClickHouse migrations not applied yet: ${names} (the projector or \`ops migrate\` applies them)`,
      );
    }
  } finally {
    await client.close();
  }
}

export async function dropClickHouseDatabase(settings: ClickHouseSettings): Promise<void> {
  const admin = createClickHouse(settings, 'default', SCHEMA_STATEMENT_MS);
  try {
    await schemaWriter(admin, settings).run(`DROP DATABASE IF EXISTS ${sqlIdentifier(settings.database)}`);
  } finally {
    await admin.close();
  }
}
