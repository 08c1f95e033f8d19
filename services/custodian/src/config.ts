import { exportStorageEnv, exportStorageSettings } from '@audit/shared/export-jobs';
import { positiveInt, serviceConfig } from '@audit/shared/platform';
import { purgeNodesEnv } from '@audit/shared/retention';

/** The environment variables the custodian reads, each described for docs/configuration.md. */
export const { envSchema, loadConfig } = serviceConfig(
  'custodian',
  ['kafka', 'clickhouse', 'postgres'],
  {
    // The purge removes a tenant's export files that may hold purged events, where the exporter put them.
    ...exportStorageEnv,
    ...purgeNodesEnv,
    RETENTION_PURGE_EVERY_HOURS: positiveInt(24).meta({
      description:
        'a tenant\'s purge runs again at most this long after its last one began (docs/retention.md "The schedule")',
    }),
    RETENTION_PURGE_RETRY_MINUTES: positiveInt(60).meta({
      description: "a tenant's failed purge is tried again this long after it ended",
    }),
    RETENTION_PURGE_CHECK_MS: positiveInt(600_000).meta({
      description: 'how often the custodian looks for tenants whose purge is due',
    }),
  },
  (e, ctx) => {
    // Every purge would refuse without them (docs/retention.md "On a cluster"): said once, at the start.
    if (e.CLICKHOUSE_CLUSTER && e.CLICKHOUSE_NODE_URLS.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['CLICKHOUSE_NODE_URLS'],
        message:
          'on a ClickHouse cluster the custodian needs every node\'s address (docs/retention.md "On a cluster")',
      });
    }
    return {
      storage: exportStorageSettings(e, ctx),
      nodeUrls: e.CLICKHOUSE_NODE_URLS,
      schedule: {
        everyMs: e.RETENTION_PURGE_EVERY_HOURS * 3_600_000,
        retryMs: e.RETENTION_PURGE_RETRY_MINUTES * 60_000,
        checkMs: e.RETENTION_PURGE_CHECK_MS,
      },
    };
  },
);

export type CustodianConfig = ReturnType<typeof loadConfig>;
