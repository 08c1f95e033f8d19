import { systemClock } from '@audit/shared/contract';
import { exportFiles } from '@audit/shared/export-jobs';
import { type ServiceHost } from '@audit/shared/host';
import { checkPostgresSchema } from '@audit/shared/migrations';
import { clickhouseReady } from '@audit/shared/platform';
import { PURGE_STATEMENT_MS, purgeRepository, purgeTenant, purgeWriter } from '@audit/shared/retention';
import { runPurgeLoop } from './adapters/purge.loop.js';
import { purgeMetrics } from './adapters/purge.metrics.js';
import type { CustodianConfig } from './config.js';

// At a shutdown the loop is given this long to end between two tenants; a purge still running then is cut off
// with the clients, and the custodian's next look at the tenant says it failed (docs/retention.md "The schedule").
const STOP_GRACE_MS = 10_000;

/** Resolves after `ms`, without holding the process open for it. */
const grace = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The custodian: it runs the tenants' retention purges on a schedule (docs/retention.md "The schedule"). */
export async function custodianService(host: ServiceHost, config: CustodianConfig): Promise<void> {
  const { admin, connect, auditLog } = host.kafka(config.kafka);
  const pool = host.postgres({ connectionString: config.databaseUrl, max: 4 });
  const clickhouse = host.clickhouse(config.clickhouse, PURGE_STATEMENT_MS);
  const nodes = config.nodeUrls.map((url) =>
    host.clickhouse({ ...config.clickhouse, url }, PURGE_STATEMENT_MS),
  );
  const files = exportFiles(config.storage);
  await host.serveInternal(config, {
    postgres: () => pool.query('SELECT 1'),
    clickhouse: () => clickhouseReady(clickhouse),
    kafka: () => admin.describeCluster(),
  });
  await host.step('postgres', () => checkPostgresSchema(pool));
  const writer = await host.step('clickhouse', () =>
    purgeWriter(clickhouse, config.clickhouse.cluster, nodes),
  );
  await connect();
  const audit = auditLog({ maxQueuedBytes: 1024 * 1024, maxWaitMs: 5000 });
  const purges = purgeRepository(pool);
  const ctx = {
    pool,
    publish: (event: unknown) => audit.publish([event]),
    actor: { user_id: 'custodian', user_role: 'service', source_ip: '', user_agent: 'audit-custodian' },
    clickhouse,
    database: config.clickhouse.database,
    files,
    writer,
    now: systemClock,
  };
  const loop = runPurgeLoop({
    candidates: () => purges.candidates(),
    purge: (tenant, due) => purgeTenant(ctx, tenant, { scheduled: { due } }),
    schedule: config.schedule,
    meter: purgeMetrics(host.metrics),
    now: systemClock,
    stopping: host.stopping,
    logger: host.logger,
  });
  host.onStop(() => Promise.race([loop, grace(STOP_GRACE_MS)]));
  host.finish({ every_hours: config.schedule.everyMs / 3_600_000 });
}
