import {
  allTopics,
  bootstrapKafka,
  exportFiles,
  migrateClickHouse,
  migratePostgres,
  loggableError,
  retryWithBackoff,
  transientKafkaError,
  type Logger,
} from '@audit/shared';
import type { OpsConfig } from '../config.js';

export interface MigrateResult {
  clickhouse: string[];
  postgres: string[];
  topics: string[];
  exportStorage: string;
}

/**
 * How long the topic step waits for Kafka to settle: right after a broker restarted, its metadata may name a leader
 * that does not host the partition yet, for seconds; a deployment runs `migrate` right after bringing brokers up.
 */
const KAFKA_SETTLE_MS = 60_000;

/**
 * Brings every store to the current schema: ClickHouse and Postgres migrations, Kafka topics, and the export
 * files' directory or bucket (made when missing). Re-runnable.
 */
export async function migrateCommand(config: OpsConfig, logger: Logger): Promise<MigrateResult> {
  const since = Date.now();
  const { topics } = await retryWithBackoff(() => bootstrapKafka(config.kafka, logger, '-ops'), {
    firstDelayMs: 1000,
    maxDelayMs: 5000,
    stopping: (err) => !transientKafkaError(err) || Date.now() - since > KAFKA_SETTLE_MS,
    failed: (err, attempt, delayMs) =>
      logger.warn(
        { attempt: attempt + 1, retry_in_ms: delayMs, err: loggableError(err) },
        'kafka not settled',
      ),
  });
  const clickhouse = await migrateClickHouse(config.clickhouse);
  const postgres = await migratePostgres(config.databaseUrl);
  const files = exportFiles(config.exportStorage);
  await files.prepare();
  return {
    clickhouse: clickhouse.applied,
    postgres: postgres.applied,
    topics: allTopics(topics).map((t) => t.name),
    exportStorage: files.describe(),
  };
}
