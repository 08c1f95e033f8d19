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

/**
 * The environment variables the ops CLI reads, each described for docs/configuration.md; those it shares with a
 * service must be described as that service describes them (scripts/config-doc.ts checks).
 */
export const envSchema = z.object({
  ...kafkaEnv,
  ...clickhouseEnv,
  ...postgresEnv,
  ...loggingEnv,
  // `migrate` prepares the export store (the bucket) the services are given.
  ...exportStorageEnv,
  // `integrity keys` writes new keys' private halves where the notary reads them.
  ...integrityEnv,
  // Only the keys commands need the pepper; they refuse to run without it.
  API_KEY_PEPPER: secret(32).optional().meta({
    description: 'server-side key for the HMAC of key secrets; ≥ 32 printable characters',
    defaultText: 'required for keys (generated in `.data/secrets.env` in a checkout)',
  }),
  API_KEY_ENV: z
    .enum(API_KEY_ENVS)
    .default('live')
    .meta({ description: 'the key environment this deployment mints and accepts (`live` or `test`)' }),
  OPERATOR_ID: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .meta({ description: 'the actor recorded in key audit events', defaultText: '`operator:<OS user>`' }),
  // The projectors' group: `replay projection` waits for its members, and names the replay's group after it.
  PROJECTOR_GROUP_ID: z
    .string()
    .min(1)
    .default('audit-projector')
    .meta({ description: "consumer group (a replay's group is `<this>.replay-g<N>`)" }),
  // As the projector's: `dlq show` and `replay webhooks` decode with the contract versions the projector has.
  SCHEMAS_DIR: z
    .string()
    .min(1)
    .optional()
    .meta({
      description:
        'a directory with `audit-event/vN.avsc`: the event contract versions the projector reads ' +
        '(`docs/operations.md`)',
      defaultText: "the checkout's `schemas/`",
    }),
  // Where `status` finds the services: the same variables and defaults the services listen by.
  GATEWAY_HOST: z.string().min(1).default('127.0.0.1').meta({ description: "public API listener's host" }),
  GATEWAY_PORT: port(8080).meta({ description: "public API listener's port" }),
  INGEST_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .meta({ description: 'host of the internal ingest listener (loopback by default), also `/metrics`' }),
  INGEST_PORT: port(8081).meta({ description: 'port of the internal ingest listener, also `/metrics`' }),
  PROJECTOR_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .meta({ description: 'host of the health endpoints and `/metrics`' }),
  PROJECTOR_PORT: port(8082).meta({ description: 'port of the health endpoints and `/metrics`' }),
  DISPATCHER_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .meta({ description: 'host of the health endpoints and `/metrics`' }),
  DISPATCHER_PORT: port(8083).meta({ description: 'port of the health endpoints and `/metrics`' }),
  EXPORTER_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .meta({ description: 'host of the health endpoints and `/metrics`' }),
  EXPORTER_PORT: port(8084).meta({ description: 'port of the health endpoints and `/metrics`' }),
  NOTARY_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .meta({ description: 'host of the health endpoints and `/metrics`' }),
  NOTARY_PORT: port(8085).meta({ description: 'port of the health endpoints and `/metrics`' }),
});

const schema = envSchema.transform((e, ctx) => ({
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
