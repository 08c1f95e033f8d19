import { z } from 'zod';
import { exportStorageEnv, exportStorageSettings } from '@audit/shared/export-jobs';
import { positiveInt, projectorGroupEnv, serviceConfig } from '@audit/shared/platform';

/** The environment variables the exporter reads, each described for docs/configuration.md. */
export const { envSchema, loadConfig } = serviceConfig(
  'exporter',
  ['kafka', 'clickhouse', 'postgres'],
  {
    ...exportStorageEnv,
    // A job waits for this group's progress (docs/exports.md "Window").
    ...projectorGroupEnv,
    EXPORTER_GROUP_ID: z
      .string()
      .min(1)
      .default('audit-exporter')
      .meta({ description: 'consumer group of `audit.export-jobs.v1`' }),
    // Each job holds a gzip stream or a Parquet thread here (docs/operations.md "Exporter memory").
    EXPORTER_CONCURRENCY: positiveInt(4).meta({
      description: 'jobs one exporter runs at once, their reads taking turns (docs/exports.md "Fair share")',
    }),
    // Each read holds a chunk's sort in ClickHouse.
    EXPORTER_READS: positiveInt(2).meta({
      description: "chunk reads one exporter's jobs have open at once, handed round their tenants in turn",
    }),
    EXPORT_JOBS_RUNNING_PER_TENANT: positiveInt(2).meta({
      description: "a tenant's jobs running at once across all exporters; the rest wait in the queue",
    }),
    EXPORT_JOB_LEASE_MS: positiveInt(30_000).meta({
      description: 'how long a job stays with an exporter that stopped recording its progress',
    }),
    EXPORT_JOB_POLL_MS: positiveInt(1000).meta({
      description: 'how often an exporter with a free slot looks for a job in the queue',
    }),
    // A chunk's memory in ClickHouse, about 1 KiB a row.
    EXPORT_JOB_CHUNK_ROWS: positiveInt(50_000).meta({
      description: "rows ClickHouse sorts per read of a job's window",
    }),
    EXPORT_JOB_MAX_ATTEMPTS: positiveInt(5).meta({ description: 'attempts of a job before it fails' }),
    EXPORT_JOB_FILE_TTL_HOURS: z.coerce
      .number()
      .positive()
      .default(168)
      .meta({ description: "a succeeded job's file lifetime" }),
    EXPORT_JOB_EXPIRY_SWEEP_MS: positiveInt(60_000).meta({
      description: 'how often expired files are deleted',
    }),
    EXPORT_JOB_PROJECTION_WAIT_MS: positiveInt(300_000).meta({
      description: 'how long a job waits for the projector to store what the audit topic holds',
    }),
    EXPORT_JOB_PROGRESS_MS: positiveInt(1000).meta({
      description: 'how often a running job records its progress',
    }),
    EXPORT_JOB_RETRY_BASE_MS: positiveInt(10_000).meta({
      description: 'the pause before attempt n + 1 of a job (n times this)',
    }),
    // Ingest's publish deadline (INGEST_PUBLISH_TIMEOUT_MS, 10 s) and 5 s for the hosts' clocks to disagree.
    EXPORT_JOB_SETTLE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(15_000)
      .meta({
        description:
          "how long after a job's acceptance its reads begin: ingest's Kafka deadline plus clock skew " +
          '(docs/exports.md "Window")',
      }),
    EXPORTER_SESSION_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(6000)
      .default(30_000)
      .meta({ description: 'consumer group session timeout (at least 6000)' }),
  },
  (e, ctx) => ({
    storage: exportStorageSettings(e, ctx),
    groupId: e.EXPORTER_GROUP_ID,
    projectorGroupId: e.PROJECTOR_GROUP_ID,
    concurrency: e.EXPORTER_CONCURRENCY,
    reads: e.EXPORTER_READS,
    runningPerTenant: e.EXPORT_JOBS_RUNNING_PER_TENANT,
    pollMs: e.EXPORT_JOB_POLL_MS,
    sessionTimeoutMs: e.EXPORTER_SESSION_TIMEOUT_MS,
    expirySweepMs: e.EXPORT_JOB_EXPIRY_SWEEP_MS,
    jobs: {
      chunkRows: e.EXPORT_JOB_CHUNK_ROWS,
      maxAttempts: e.EXPORT_JOB_MAX_ATTEMPTS,
      fileTtlMs: Math.round(e.EXPORT_JOB_FILE_TTL_HOURS * 3_600_000),
      projectionTimeoutMs: e.EXPORT_JOB_PROJECTION_WAIT_MS,
      progressMs: e.EXPORT_JOB_PROGRESS_MS,
      retryBaseMs: e.EXPORT_JOB_RETRY_BASE_MS,
      settleMs: e.EXPORT_JOB_SETTLE_MS,
      leaseMs: e.EXPORT_JOB_LEASE_MS,
    },
  }),
);

export type ExporterConfig = ReturnType<typeof loadConfig>;
