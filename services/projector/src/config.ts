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

/**
 * How often the projector inserts at most, by default (docs/architecture.md "Projection"): on one server an idle
 * flush may follow the previous one after 100 ms, so events are queryable soon; on a cluster every insert writes
 * a part of each table on every replica of a shard, with tens of ZooKeeper requests per part, so the projector
 * keeps to about one insert a second, ClickHouse's own guidance (measured: docs/benchmarks.md "bench:cluster").
 */
const flushDefaults = (cluster: string | undefined) =>
  cluster ? { flushMs: 1000, minIntervalMs: 1000 } : { flushMs: 500, minIntervalMs: 100 };

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
    // Their defaults depend on CLICKHOUSE_CLUSTER (flushDefaults).
    PROJECTOR_FLUSH_MS: z.coerce.number().int().positive().optional(),
    PROJECTOR_FLUSH_IDLE_MS: positiveInt(5),
    PROJECTOR_FLUSH_MIN_INTERVAL_MS: z.coerce.number().int().min(0).optional(),
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
    flushMs: e.PROJECTOR_FLUSH_MS ?? flushDefaults(e.CLICKHOUSE_CLUSTER).flushMs,
    flushIdleMs: e.PROJECTOR_FLUSH_IDLE_MS,
    flushMinIntervalMs:
      e.PROJECTOR_FLUSH_MIN_INTERVAL_MS ?? flushDefaults(e.CLICKHOUSE_CLUSTER).minIntervalMs,
    sessionTimeoutMs: e.PROJECTOR_SESSION_TIMEOUT_MS,
    schemasDir: e.SCHEMAS_DIR,
  }));

export type ProjectorConfig = z.output<typeof schema>;

export function loadConfig(env: Env): Readonly<ProjectorConfig> {
  return parseEnv('projector', schema, env);
}
