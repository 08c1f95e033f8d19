import { z } from 'zod';
import {
  type Env,
  integrityEnv,
  integritySettings,
  listenersEnv,
  loggingEnv,
  parseEnv,
  positiveInt,
  postgresEnv,
} from '@audit/shared';

/** The environment variables the notary reads, each described for docs/configuration.md. */
export const envSchema = z.object({
  ...postgresEnv,
  ...loggingEnv,
  ...integrityEnv,
  INTEGRITY_CHECKPOINT_INTERVAL_MS: positiveInt(60_000).meta({
    description:
      "a tenant's new leaves wait at most this long for a checkpoint (or until `INTEGRITY_CHECKPOINT_EVERY` of " +
      'them wait; docs/integrity.md "Checkpoints")',
  }),
  INTEGRITY_CHECKPOINT_EVERY: positiveInt(10_000).meta({
    description:
      "a tenant's new leaves wait for a checkpoint until this many wait (or `INTEGRITY_CHECKPOINT_INTERVAL_MS` at " +
      'most)',
  }),
  ...listenersEnv.notary,
});

const schema = envSchema.transform((e) => ({
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
