import { z } from 'zod';
import {
  kafkaEnv,
  kafkaSettings,
  loggingEnv,
  parseEnv,
  port,
  positiveInt,
  secret,
  type Env,
} from '@audit/shared';

const schema = z
  .object({
    ...kafkaEnv,
    ...loggingEnv,
    INGEST_HOST: z.string().min(1).default('127.0.0.1'),
    INGEST_PORT: port(8081),
    INGEST_TOKEN: secret(16),
    INGEST_MAX_BYTES: positiveInt(16 * 1024 * 1024),
    INGEST_PUBLISH_TIMEOUT_MS: positiveInt(10_000),
    INGEST_MAX_QUEUED_BYTES: positiveInt(64 * 1024 * 1024),
  })
  .transform((e) => ({
    kafka: kafkaSettings(e),
    logLevel: e.LOG_LEVEL,
    host: e.INGEST_HOST,
    port: e.INGEST_PORT,
    token: e.INGEST_TOKEN,
    maxBytes: e.INGEST_MAX_BYTES,
    publishTimeoutMs: e.INGEST_PUBLISH_TIMEOUT_MS,
    maxQueuedBytes: e.INGEST_MAX_QUEUED_BYTES,
  }));

export type IngestConfig = z.output<typeof schema>;

export function loadConfig(env: Env): Readonly<IngestConfig> {
  return parseEnv('ingest', schema, env);
}
