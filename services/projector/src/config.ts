import { z } from 'zod';
import { schemasDirEnv } from '@audit/shared/contract';
import { booleanFlag, positiveInt, projectorGroupEnv, serviceConfig } from '@audit/shared/platform';

/**
 * How often the projector inserts at most, by default (docs/architecture.md "Projection"): on one server an idle
 * flush may follow the previous one after 100 ms, so events are queryable soon; on a cluster every insert writes
 * a part of each table on every replica of a shard, with tens of ZooKeeper requests per part, so the projector
 * keeps to about one insert a second, ClickHouse's own guidance (measured: docs/benchmarks/journal.md
 * "bench:cluster").
 */
const flushDefaults = (cluster: string | undefined) =>
  cluster ? { flushMs: 1000, minIntervalMs: 1000 } : { flushMs: 500, minIntervalMs: 100 };

const flushDefaultText = (setting: 'flushMs' | 'minIntervalMs') =>
  `\`${flushDefaults(undefined)[setting]}\`; \`${flushDefaults('cluster')[setting]}\` with \`CLICKHOUSE_CLUSTER\``;

/** The environment variables the projector reads, each described for docs/configuration.md. */
export const { envSchema, loadConfig } = serviceConfig(
  'projector',
  // Postgres holds the trees, and the audit topic's generations once it has grown (docs/topic-growth.md).
  ['kafka', 'clickhouse', 'postgres'],
  {
    PROJECTOR_TREES: booleanFlag(true).meta({
      description:
        "append each event to its tenant's Merkle tree in Postgres, in the write that stores it " +
        '(docs/integrity.md "Who appends"); `false`: the trees stop',
    }),
    // Where the notary of before migration 0021 had appended the trees up to: the trees go on from there. It can go
    // once every deployment has started a projector past that migration (tree-positions.begin.ts).
    PROJECTOR_TREES_NOTARY_GROUP_ID: z
      .string()
      .min(1)
      .default('audit-notary')
      .meta({
        description:
          "a partition without a tree position begins at this group's committed offset (the notary's, before " +
          "migration 0021), else at the topic's oldest record",
      }),
    ...projectorGroupEnv,
    PROJECTOR_BATCH_SIZE: positiveInt(10_000).meta({ description: 'flush once this many records wait' }),
    // Their defaults depend on CLICKHOUSE_CLUSTER (flushDefaults).
    PROJECTOR_FLUSH_MS: z.coerce
      .number()
      .int()
      .positive()
      .optional()
      .meta({
        description: 'flush at the latest this long after the first record',
        defaultText: flushDefaultText('flushMs'),
      }),
    PROJECTOR_FLUSH_IDLE_MS: positiveInt(5).meta({
      description: 'flush once no record arrived for this long (the fetch is complete)',
    }),
    PROJECTOR_FLUSH_MIN_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(0)
      .optional()
      .meta({
        description:
          'an idle flush waits this long after the previous flush began (no stream of tiny inserts)',
        defaultText: flushDefaultText('minIntervalMs'),
      }),
    PROJECTOR_SESSION_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(6000)
      .default(10_000)
      .meta({ description: 'consumer group session timeout (at least 6000)' }),
    ...schemasDirEnv,
  },
  (e) => ({
    trees: e.PROJECTOR_TREES ? { notaryGroupId: e.PROJECTOR_TREES_NOTARY_GROUP_ID } : null,
    groupId: e.PROJECTOR_GROUP_ID,
    batchSize: e.PROJECTOR_BATCH_SIZE,
    flushMs: e.PROJECTOR_FLUSH_MS ?? flushDefaults(e.CLICKHOUSE_CLUSTER).flushMs,
    flushIdleMs: e.PROJECTOR_FLUSH_IDLE_MS,
    flushMinIntervalMs:
      e.PROJECTOR_FLUSH_MIN_INTERVAL_MS ?? flushDefaults(e.CLICKHOUSE_CLUSTER).minIntervalMs,
    sessionTimeoutMs: e.PROJECTOR_SESSION_TIMEOUT_MS,
    schemasDir: e.SCHEMAS_DIR,
  }),
);

export type ProjectorConfig = ReturnType<typeof loadConfig>;
