import { z } from 'zod';
import {
  booleanFlag,
  clickhouseEnv,
  clickhouseSettings,
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
    ...loggingEnv,
    ...postgresEnv,
    // The live projection appends every event to its tenant's tree in Postgres (docs/integrity.md "Who appends").
    PROJECTOR_TREES: booleanFlag(true),
    // Where the notary of before migration 0021 had appended the trees up to: the trees go on from there.
    PROJECTOR_TREES_NOTARY_GROUP_ID: z.string().min(1).default('audit-notary'),
    PROJECTOR_HOST: z.string().min(1).default('127.0.0.1'),
    PROJECTOR_PORT: port(8082),
    PROJECTOR_GROUP_ID: z.string().min(1).default('audit-projector'),
    PROJECTOR_BATCH_SIZE: positiveInt(10_000),
    PROJECTOR_FLUSH_MS: positiveInt(500),
    PROJECTOR_FLUSH_IDLE_MS: positiveInt(5),
    PROJECTOR_FLUSH_MIN_INTERVAL_MS: z.coerce.number().int().min(0).default(100),
    PROJECTOR_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6000).default(10_000),
    SCHEMAS_DIR: z.string().min(1).optional(),
  })
  .transform((e) => ({
    kafka: kafkaSettings(e),
    clickhouse: clickhouseSettings(e),
    logLevel: e.LOG_LEVEL,
    // The trees, and the audit topic's generations once it has grown (docs/topic-growth.md).
    databaseUrl: e.DATABASE_URL,
    trees: e.PROJECTOR_TREES ? { notaryGroupId: e.PROJECTOR_TREES_NOTARY_GROUP_ID } : null,
    host: e.PROJECTOR_HOST,
    port: e.PROJECTOR_PORT,
    groupId: e.PROJECTOR_GROUP_ID,
    batchSize: e.PROJECTOR_BATCH_SIZE,
    flushMs: e.PROJECTOR_FLUSH_MS,
    flushIdleMs: e.PROJECTOR_FLUSH_IDLE_MS,
    flushMinIntervalMs: e.PROJECTOR_FLUSH_MIN_INTERVAL_MS,
    sessionTimeoutMs: e.PROJECTOR_SESSION_TIMEOUT_MS,
    schemasDir: e.SCHEMAS_DIR,
  }));

export type ProjectorConfig = z.output<typeof schema>;

export function loadConfig(env: Env): Readonly<ProjectorConfig> {
  return parseEnv('projector', schema, env);
}
