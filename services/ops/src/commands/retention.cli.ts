import { onlyOptions, type CliContext, type CliValues } from '../cli-values.js';
import { withAuditedContext, withPool } from '../contexts.js';
import { exportFiles } from '@audit/shared/export-jobs';
import { createClickHouse } from '@audit/shared/platform';
import {
  policyView,
  PURGE_STATEMENT_MS,
  purgeRepository,
  purgeTenant,
  PurgeError,
  purgeWriter,
} from '@audit/shared/retention';
import { parseRetentionPurge, parseRetentionSet, parseRetentionShow } from '../domain/retention-request.js';
import { HELP } from '../help.js';
import { CliError } from './cli-error.js';
import { purgeStatusView, purgeView } from './retention-purge-view.js';
import { policyText, purgeStatusText, purgeText } from './retention-text.js';
import { operatorActor } from '../domain/retention-actor.js';
import { retentionCommands } from './retention.command.js';

const STATUS_RUNS = 10;

/** `ops retention show|set|purge|status` (docs/operations.md "Retention and legal holds"). */
export async function retentionCli(
  sub: string | undefined,
  values: CliValues,
  { config, logger, print, note }: CliContext,
) {
  const allowed = {
    show: ['tenant'],
    set: ['tenant', 'min-days', 'max-days', 'no-max'],
    purge: ['tenant', 'dry-run'],
    status: ['tenant'],
  } as const;
  if (sub !== 'show' && sub !== 'set' && sub !== 'purge' && sub !== 'status') {
    throw new CliError(`unknown retention command: ${sub ?? '(none)'}\n\n${HELP.retention}`, 2);
  }
  const stray = onlyOptions(values, `retention ${sub}`, allowed[sub]);
  if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
  if (sub === 'purge') {
    const parsed = parseRetentionPurge(values);
    if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
    const { tenant, dry_run } = parsed.request;
    const connect = (url: string) =>
      createClickHouse({ ...config.clickhouse, url }, config.clickhouse.database, PURGE_STATEMENT_MS);
    const clickhouse = connect(config.clickhouse.url);
    const nodes = config.nodeUrls.map(connect);
    try {
      const report = await withAuditedContext(config, logger, async (ctx) =>
        purgeTenant(
          {
            pool: ctx.pool,
            publish: (event) => ctx.publisher.publish([event]),
            actor: operatorActor(ctx.operator),
            clickhouse,
            database: config.clickhouse.database,
            files: exportFiles(config.exportStorage),
            writer: await purgeWriter(clickhouse, config.clickhouse.cluster, nodes),
            now: Date.now,
            note,
          },
          tenant,
          { dryRun: dry_run },
        ),
      ).catch((err: unknown) => {
        throw err instanceof PurgeError ? new CliError(err.message) : err;
      });
      return print(purgeView(report), purgeText(report));
    } finally {
      await Promise.all([clickhouse, ...nodes].map((c) => c.close()));
    }
  }
  if (sub === 'status') {
    const parsed = parseRetentionShow(values);
    if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
    const { tenant } = parsed.request;
    const status = await withPool(config, logger, (pool) =>
      purgeRepository(pool).status(tenant, STATUS_RUNS),
    );
    return print(purgeStatusView(tenant, status), purgeStatusText(tenant, status));
  }
  if (sub === 'show') {
    const parsed = parseRetentionShow(values);
    if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
    const { tenant } = parsed.request;
    const policy = await withPool(config, logger, (pool) => retentionCommands.show(pool, tenant));
    return print({ tenant_id: tenant, ...policyView(policy) }, `${tenant}: ${policyText(policy)}`);
  }
  const parsed = parseRetentionSet(values);
  if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
  const { tenant, policy } = parsed.request;
  const set = await withAuditedContext(config, logger, (ctx) => retentionCommands.set(ctx, tenant, policy));
  return print(
    { tenant_id: tenant, ...policyView(set.policy), previous: policyView(set.previous) },
    `${tenant}: ${policyText(set.policy)}\nreplacing: ${policyText(set.previous)}`,
  );
}
