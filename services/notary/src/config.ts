import { z } from 'zod';
import {
  integrityEnv,
  integritySettings,
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
    ...postgresEnv,
    ...loggingEnv,
    ...integrityEnv,
    // A tenant's new leaves wait at most this long for a checkpoint, or until this many wait (docs/integrity.md).
    INTEGRITY_CHECKPOINT_INTERVAL_MS: positiveInt(60_000),
    INTEGRITY_CHECKPOINT_EVERY: positiveInt(10_000),
    NOTARY_HOST: z.string().min(1).default('127.0.0.1'),
    NOTARY_PORT: port(8085),
    NOTARY_GROUP_ID: z.string().min(1).default('audit-notary'),
    NOTARY_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6000).default(30_000),
    // A fetch waits for this many bytes of records, or this long: larger batches, fewer transactions
    // (docs/architecture.md "Notary"). At most the fetch's byte limit (main.ts), and well within
    // the session timeout.
    NOTARY_FETCH_MIN_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .max(32 * 1024 * 1024)
      .default(8 * 1024 * 1024),
    NOTARY_FETCH_MAX_WAIT_MS: z.coerce.number().int().positive().max(10_000).default(2000),
  })
  .transform((e) => ({
    kafka: kafkaSettings(e),
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    host: e.NOTARY_HOST,
    port: e.NOTARY_PORT,
    groupId: e.NOTARY_GROUP_ID,
    sessionTimeoutMs: e.NOTARY_SESSION_TIMEOUT_MS,
    fetch: { minBytes: e.NOTARY_FETCH_MIN_BYTES, maxWaitMs: e.NOTARY_FETCH_MAX_WAIT_MS },
    integrity: integritySettings(e),
    checkpoints: { intervalMs: e.INTEGRITY_CHECKPOINT_INTERVAL_MS, every: e.INTEGRITY_CHECKPOINT_EVERY },
  }));

export type NotaryConfig = z.output<typeof schema>;

export function loadConfig(env: Env): Readonly<NotaryConfig> {
  return parseEnv('notary', schema, env);
}
