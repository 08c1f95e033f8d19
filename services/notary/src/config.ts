import { z } from 'zod';
import {
  integrityEnv,
  integritySettings,
  loggingEnv,
  parseEnv,
  port,
  positiveInt,
  postgresEnv,
  type Env,
} from '@audit/shared';

const schema = z
  .object({
    ...postgresEnv,
    ...loggingEnv,
    ...integrityEnv,
    // A tenant's new leaves wait at most this long for a checkpoint, or until this many wait (docs/integrity.md).
    INTEGRITY_CHECKPOINT_INTERVAL_MS: positiveInt(60_000),
    INTEGRITY_CHECKPOINT_EVERY: positiveInt(10_000),
    NOTARY_HOST: z.string().min(1).default('127.0.0.1'),
    NOTARY_PORT: port(8085),
  })
  .transform((e) => ({
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    host: e.NOTARY_HOST,
    port: e.NOTARY_PORT,
    integrity: integritySettings(e),
    checkpoints: { intervalMs: e.INTEGRITY_CHECKPOINT_INTERVAL_MS, every: e.INTEGRITY_CHECKPOINT_EVERY },
  }));

export type NotaryConfig = z.output<typeof schema>;

export function loadConfig(env: Env): Readonly<NotaryConfig> {
  return parseEnv('notary', schema, env);
}
