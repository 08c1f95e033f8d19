import {
  createKafka,
  ensureTopics,
  migrateClickHouse,
  migratePostgres,
  topics,
  type Logger,
} from '@audit/shared';
import type { OpsConfig } from '../config.js';

export interface MigrateResult {
  clickhouse: string[];
  postgres: string[];
  topics: string[];
}

/** Brings every store to the current schema: ClickHouse and Postgres migrations, Kafka topics. Re-runnable. */
export async function migrateCommand(config: OpsConfig, logger: Logger): Promise<MigrateResult> {
  const topicSet = Object.values(topics(config.kafka.topicPrefix, config.kafka.replicationFactor));
  await ensureTopics(createKafka(config.kafka, logger, '-ops'), topicSet, config.kafka.replicationFactor);
  const clickhouse = await migrateClickHouse(config.clickhouse);
  const postgres = await migratePostgres(config.databaseUrl);
  return { clickhouse: clickhouse.applied, postgres: postgres.applied, topics: topicSet.map((t) => t.name) };
}
