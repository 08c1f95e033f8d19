// The ClickHouse and Postgres migrations (infra/migrations).
export * from './clickhouse.migrator.js';
export * from './migration-files.js';
export * from './postgres.migrator.js';
export * from './service-roles.js';
