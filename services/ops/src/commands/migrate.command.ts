import { allTopics, bootstrapKafka, migrateClickHouse, migratePostgres, type Logger } from '@audit/shared';
import type { OpsConfig } from '../config.js';

export interface MigrateResult {
  clickhouse: string[];
  postgres: string[];
  topics: string[];
}

/** Brings every store to the current schema: ClickHouse and Postgres migrations, Kafka topics. Re-runnable. */
export async function migrateCommand(config: OpsConfig, logger: Logger): Promise<MigrateResult> {
  const { topics } = await bootstrapKafka(config.kafka, logger, '-ops');
  const clickhouse = await migrateClickHouse(config.clickhouse);
  const postgres = await migratePostgres(config.databaseUrl);
  return {
    clickhouse: clickhouse.applied,
    postgres: postgres.applied,
    topics: allTopics(topics).map((t) => t.name),
  };
}
