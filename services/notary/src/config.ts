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

/**
 * A fetch takes at most this many bytes of a partition, and the broker counts no more of one partition toward a
 * fetch's least bytes: a least above it could never be met by one tenant's partition alone, and every fetch would
 * wait its longest even with a backlog.
 */
export const FETCH_PARTITION_BYTES = 8 * 1024 * 1024;

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
    // (docs/architecture.md "Notary").
    NOTARY_FETCH_MIN_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .max(FETCH_PARTITION_BYTES)
      .default(FETCH_PARTITION_BYTES),
    NOTARY_FETCH_MAX_WAIT_MS: positiveInt(2000),
  })
  // kafkajs heartbeats between fetches only: a fetch that waits longer than a third of the session timeout
  // could cost the consumer its partitions.
  .refine((e) => 3 * e.NOTARY_FETCH_MAX_WAIT_MS <= e.NOTARY_SESSION_TIMEOUT_MS, {
    path: ['NOTARY_FETCH_MAX_WAIT_MS'],
    message: 'at most a third of NOTARY_SESSION_TIMEOUT_MS',
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
