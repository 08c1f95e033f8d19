import { z } from 'zod';
import {
  clickhouseEnv,
  clickhouseSettings,
  exportStorageEnv,
  exportStorageSettings,
  kafkaEnv,
  kafkaSettings,
  loggingEnv,
  parseEnv,
  port,
  positiveInt,
  postgresEnv,
  type Env,
} from '@audit/shared';

const schema = z
  .object({
    ...kafkaEnv,
    ...clickhouseEnv,
    ...postgresEnv,
    ...loggingEnv,
    ...exportStorageEnv,
    EXPORTER_HOST: z.string().min(1).default('127.0.0.1'),
    EXPORTER_PORT: port(8084),
    EXPORTER_GROUP_ID: z.string().min(1).default('audit-exporter'),
    // The projector's group, whose progress a job waits for (docs/exports.md "Window").
    PROJECTOR_GROUP_ID: z.string().min(1).default('audit-projector'),
    // Jobs at once per exporter: each holds a chunk's sort in ClickHouse and a gzip stream here.
    EXPORTER_CONCURRENCY: positiveInt(2),
    // Rows ClickHouse sorts per read: a chunk's memory there, about 1 KiB a row.
    EXPORT_JOB_CHUNK_ROWS: positiveInt(50_000),
    EXPORT_JOB_MAX_ATTEMPTS: positiveInt(5),
    EXPORT_JOB_FILE_TTL_HOURS: z.coerce.number().positive().default(168),
    EXPORT_JOB_EXPIRY_SWEEP_MS: positiveInt(60_000),
    EXPORT_JOB_PROJECTION_WAIT_MS: positiveInt(300_000),
    EXPORT_JOB_PROGRESS_MS: positiveInt(1000),
    EXPORT_JOB_RETRY_BASE_MS: positiveInt(10_000),
    // Ingest's publish deadline (INGEST_PUBLISH_TIMEOUT_MS, 10 s) and 5 s for the hosts' clocks to disagree.
    EXPORT_JOB_SETTLE_MS: z.coerce.number().int().min(0).default(15_000),
    EXPORTER_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6000).default(30_000),
  })
  .transform((e, ctx) => ({
    kafka: kafkaSettings(e),
    clickhouse: clickhouseSettings(e),
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    storage: exportStorageSettings(e, ctx),
    host: e.EXPORTER_HOST,
    port: e.EXPORTER_PORT,
    groupId: e.EXPORTER_GROUP_ID,
    projectorGroupId: e.PROJECTOR_GROUP_ID,
    concurrency: e.EXPORTER_CONCURRENCY,
    sessionTimeoutMs: e.EXPORTER_SESSION_TIMEOUT_MS,
    expirySweepMs: e.EXPORT_JOB_EXPIRY_SWEEP_MS,
    jobs: {
      chunkRows: e.EXPORT_JOB_CHUNK_ROWS,
      maxAttempts: e.EXPORT_JOB_MAX_ATTEMPTS,
      fileTtlMs: Math.round(e.EXPORT_JOB_FILE_TTL_HOURS * 3_600_000),
      projectionTimeoutMs: e.EXPORT_JOB_PROJECTION_WAIT_MS,
      progressMs: e.EXPORT_JOB_PROGRESS_MS,
      retryBaseMs: e.EXPORT_JOB_RETRY_BASE_MS,
      settleMs: e.EXPORT_JOB_SETTLE_MS,
    },
  }));

export type ExporterConfig = z.output<typeof schema>;

export function loadConfig(env: Env): Readonly<ExporterConfig> {
  return parseEnv('exporter', schema, env);
}
