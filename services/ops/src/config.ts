import { z } from 'zod';
import {
  API_KEY_ENVS,
  clickhouseEnv,
  clickhouseSettings,
  kafkaEnv,
  kafkaSettings,
  loggingEnv,
  parseEnv,
  postgresEnv,
  secret,
  type Env,
} from '@audit/shared';

const schema = z
  .object({
    ...kafkaEnv,
    ...clickhouseEnv,
    ...postgresEnv,
    ...loggingEnv,
    // Only the keys commands need the pepper; they refuse to run without it.
    API_KEY_PEPPER: secret(32).optional(),
    API_KEY_ENV: z.enum(API_KEY_ENVS).default('live'),
    OPERATOR_ID: z.string().min(1).max(256).optional(),
  })
  .transform((e) => ({
    kafka: kafkaSettings(e),
    clickhouse: clickhouseSettings(e),
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    apiKeyPepper: e.API_KEY_PEPPER,
    apiKeyEnv: e.API_KEY_ENV,
    operatorId: e.OPERATOR_ID,
  }));

export type OpsConfig = z.output<typeof schema>;

export function loadConfig(env: Env): Readonly<OpsConfig> {
  return parseEnv('ops', schema, env);
}
