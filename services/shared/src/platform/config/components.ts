import { z } from 'zod';
import { logLevel, port, positiveInt } from './env.js';
import { configPart } from './config-part.js';

// Defaults match infra/local/stack.sh, so a fresh checkout needs no configuration.
export const kafkaEnv = {
  KAFKA_BROKERS: z
    .string()
    .default('127.0.0.1:15092')
    .transform((s) => s.split(',').map((b) => b.trim()))
    .pipe(z.array(z.string().regex(/^[^\s:]+:\d+$/, 'must be host:port[,host:port...]')).min(1))
    .meta({ description: 'comma-separated `host:port`' }),
  KAFKA_CLIENT_ID: z.string().min(1).default('audit-trail').meta({ description: 'client id prefix' }),
  KAFKA_REPLICATION_FACTOR: positiveInt(1).meta({
    description: 'for topics the service creates; `min.insync.replicas` = min(2, this)',
  }),
  TOPIC_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/, 'must be [A-Za-z0-9._-]*')
    .default('')
    .meta({ description: 'prefix for every topic name (tests isolate with it)' }),
};

export const clickhouseEnv = {
  CLICKHOUSE_URL: z.url().default('http://127.0.0.1:15123').meta({ description: 'HTTP interface' }),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier')
    .default('audit')
    .meta({ description: 'created by the migrations' }),
  CLICKHOUSE_USER: z
    .string()
    .default('default')
    .meta({
      description:
        "the gateway's and the exporter's must be read-only, e.g. the local stack's `audit_reader` " +
        '(docs/operations.md "ClickHouse users")',
    }),
  CLICKHOUSE_PASSWORD: z.string().default('').meta({ description: "`CLICKHOUSE_USER`'s password" }),
  CLICKHOUSE_CLUSTER: z
    .string()
    .regex(/^([A-Za-z_][A-Za-z0-9_.-]*)?$/, 'must be a cluster name')
    .default('')
    .meta({
      description:
        "the cluster's name on a ClickHouse cluster or ClickHouse Cloud (`default`): the schema sharded by tenant " +
        'and replicated, quorum inserts, consistent duplicate checks ' +
        '(docs/operations.md "ClickHouse cluster or Cloud")',
      defaultText: '(empty: one server)',
    }),
};

export const postgresEnv = {
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .default('postgres://audit:audit@127.0.0.1:15432/audit')
    .meta({
      description:
        "Postgres (the projector: its trees with `PROJECTOR_TREES`, and the audit topic's generations); a " +
        'service logs in as its own role, ops as the schema\'s owner (docs/operations.md "Database roles")',
    }),
};

export const loggingEnv = { LOG_LEVEL: logLevel.meta({ description: 'pino level' }) };

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  replicationFactor: number;
  topicPrefix: string;
}

export interface ClickHouseSettings {
  url: string;
  database: string;
  user: string;
  password: string;
  /** The cluster the tables live on, if any: the projector then reads and waits across replicas. */
  cluster?: string;
}

export function kafkaSettings(e: z.output<z.ZodObject<typeof kafkaEnv>>): KafkaSettings {
  return {
    brokers: e.KAFKA_BROKERS,
    clientId: e.KAFKA_CLIENT_ID,
    replicationFactor: e.KAFKA_REPLICATION_FACTOR,
    topicPrefix: e.TOPIC_PREFIX,
  };
}

export function clickhouseSettings(e: z.output<z.ZodObject<typeof clickhouseEnv>>): ClickHouseSettings {
  return {
    url: e.CLICKHOUSE_URL,
    database: e.CLICKHOUSE_DATABASE,
    user: e.CLICKHOUSE_USER,
    password: e.CLICKHOUSE_PASSWORD,
    ...(e.CLICKHOUSE_CLUSTER ? { cluster: e.CLICKHOUSE_CLUSTER } : {}),
  };
}

const HEALTH = 'the health endpoints and `/metrics`';

/** Where a service listens: `<NAME>_HOST` and `<NAME>_PORT`, made its `host` and `port`. */
function listenerPart<N extends string>(name: N, defaultPort: number, what: string) {
  const host = z
    .string()
    .min(1)
    .default('127.0.0.1')
    .meta({ description: `host of ${what}` });
  const portOf = port(defaultPort).meta({ description: `port of ${what}` });
  const env = { [`${name}_HOST`]: host, [`${name}_PORT`]: portOf } as Record<`${N}_HOST`, typeof host> &
    Record<`${N}_PORT`, typeof portOf>;
  return configPart(env, (e) => {
    const values = e as Record<string, unknown> as Record<`${N}_HOST`, string> & Record<`${N}_PORT`, number>;
    return { host: values[`${name}_HOST`], port: values[`${name}_PORT`] };
  });
}

/** The components a deployable may read the variables of, each with the settings made of them. */
export const componentParts = {
  kafka: configPart(kafkaEnv, (e) => ({ kafka: kafkaSettings(e) })),
  clickhouse: configPart(clickhouseEnv, (e) => ({ clickhouse: clickhouseSettings(e) })),
  postgres: configPart(postgresEnv, (e) => ({ databaseUrl: e.DATABASE_URL })),
};

/** Every deployable logs. */
export const loggingPart = configPart(loggingEnv, (e) => ({ logLevel: e.LOG_LEVEL }));

/**
 * Each service's listener, with the same defaults for the service, which listens there, and for `ops status`,
 * which looks for it there.
 */
export const listenerParts = {
  gateway: listenerPart('GATEWAY', 8080, 'the public API listener'),
  ingest: listenerPart('INGEST', 8081, 'the internal ingest listener (loopback by default), also `/metrics`'),
  projector: listenerPart('PROJECTOR', 8082, HEALTH),
  dispatcher: listenerPart('DISPATCHER', 8083, HEALTH),
  exporter: listenerPart('EXPORTER', 8084, HEALTH),
  notary: listenerPart('NOTARY', 8085, HEALTH),
  custodian: listenerPart('CUSTODIAN', 8086, HEALTH),
};

/** The projector's consumer group: the projector's own, what an export job waits for, what `ops` reads. */
export const projectorGroupEnv = {
  PROJECTOR_GROUP_ID: z
    .string()
    .min(1)
    .default('audit-projector')
    .meta({ description: "consumer group (a replay's group is `<this>.replay-g<N>`)" }),
};
