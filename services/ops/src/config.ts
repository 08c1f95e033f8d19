import { z } from 'zod';
import {
  API_KEY_ENVS,
  clickhouseEnv,
  clickhouseSettings,
  exportStorageEnv,
  exportStorageSettings,
  integrityEnv,
  integritySettings,
  kafkaEnv,
  kafkaSettings,
  loggingEnv,
  parseEnv,
  port,
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
    // `migrate` prepares the export store (the bucket) the services are given.
    ...exportStorageEnv,
    // `integrity keys` writes new keys' private halves where the notary reads them.
    ...integrityEnv,
    // Only the keys commands need the pepper; they refuse to run without it.
    API_KEY_PEPPER: secret(32).optional(),
    API_KEY_ENV: z.enum(API_KEY_ENVS).default('live'),
    OPERATOR_ID: z.string().min(1).max(256).optional(),
    // The projectors' group: `replay projection` waits for its members, and names the replay's group after it.
    PROJECTOR_GROUP_ID: z.string().min(1).default('audit-projector'),
    // As the projector's: `dlq show` and `replay webhooks` decode with the contract versions the projector has.
    SCHEMAS_DIR: z.string().min(1).optional(),
    // Where `status` finds the services: the same variables and defaults the services listen by.
    GATEWAY_HOST: z.string().min(1).default('127.0.0.1'),
    GATEWAY_PORT: port(8080),
    INGEST_HOST: z.string().min(1).default('127.0.0.1'),
    INGEST_PORT: port(8081),
    PROJECTOR_HOST: z.string().min(1).default('127.0.0.1'),
    PROJECTOR_PORT: port(8082),
    DISPATCHER_HOST: z.string().min(1).default('127.0.0.1'),
    DISPATCHER_PORT: port(8083),
    EXPORTER_HOST: z.string().min(1).default('127.0.0.1'),
    EXPORTER_PORT: port(8084),
    NOTARY_HOST: z.string().min(1).default('127.0.0.1'),
    NOTARY_PORT: port(8085),
  })
  .transform((e, ctx) => ({
    kafka: kafkaSettings(e),
    clickhouse: clickhouseSettings(e),
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    exportStorage: exportStorageSettings(e, ctx),
    integrity: integritySettings(e),
    apiKeyPepper: e.API_KEY_PEPPER,
    apiKeyEnv: e.API_KEY_ENV,
    operatorId: e.OPERATOR_ID,
    projectorGroupId: e.PROJECTOR_GROUP_ID,
    schemasDir: e.SCHEMAS_DIR,
    services: {
      gateway: { host: e.GATEWAY_HOST, port: e.GATEWAY_PORT },
      ingest: { host: e.INGEST_HOST, port: e.INGEST_PORT },
      projector: { host: e.PROJECTOR_HOST, port: e.PROJECTOR_PORT },
      dispatcher: { host: e.DISPATCHER_HOST, port: e.DISPATCHER_PORT },
      exporter: { host: e.EXPORTER_HOST, port: e.EXPORTER_PORT },
      notary: { host: e.NOTARY_HOST, port: e.NOTARY_PORT },
    },
  }));

export type OpsConfig = z.output<typeof schema>;

export function loadConfig(env: Env): Readonly<OpsConfig> {
  return parseEnv('ops', schema, env);
}
