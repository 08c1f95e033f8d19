import { z } from 'zod';
import {
  clickhouseEnv,
  clickhouseSettings,
  kafkaEnv,
  kafkaSettings,
  loggingEnv,
  parseEnv,
  postgresEnv,
  type Env,
} from '@audit/shared';

const schema = z.object({ ...kafkaEnv, ...clickhouseEnv, ...postgresEnv, ...loggingEnv }).transform((e) => ({
  kafka: kafkaSettings(e),
  clickhouse: clickhouseSettings(e),
  databaseUrl: e.DATABASE_URL,
  logLevel: e.LOG_LEVEL,
}));

export type OpsConfig = z.output<typeof schema>;

export function loadConfig(env: Env): Readonly<OpsConfig> {
  return parseEnv('ops', schema, env);
}
