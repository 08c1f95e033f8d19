import { allTopics, bootstrapKafka } from '@audit/shared/contract';
import { exportFiles } from '@audit/shared/export-jobs';
import { enableServiceLogins, migrateClickHouse, migratePostgres } from '@audit/shared/migrations';
import { type Logger } from '@audit/shared/platform';
import type { OpsConfig } from '../config.js';

export interface MigrateResult {
  clickhouse: string[];
  postgres: string[];
  /** The services' roles given a login (docs/operations.md "Database roles"). */
  logins: string[];
  topics: string[];
  exportStorage: string;
}

/**
 * Brings every store to the current schema: ClickHouse and Postgres migrations (the services' roles among them,
 * given a login when their passwords are set), Kafka topics, and the export files' directory or bucket (made when
 * missing). Re-runnable.
 */
export async function migrateCommand(config: OpsConfig, logger: Logger): Promise<MigrateResult> {
  const { topics } = await bootstrapKafka(config.kafka, logger, '-ops');
  const clickhouse = await migrateClickHouse(config.clickhouse);
  const postgres = await migratePostgres(config.databaseUrl);
  const logins = await enableServiceLogins(config.databaseUrl, config.serviceLogins);
  const files = exportFiles(config.exportStorage);
  await files.prepare();
  return {
    clickhouse: clickhouse.applied,
    postgres: postgres.applied,
    logins,
    topics: allTopics(topics).map((t) => t.name),
    exportStorage: files.describe(),
  };
}
