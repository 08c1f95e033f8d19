import { onlyOptions, type CliContext, type CliValues } from '../cli-values.js';
import { withAuditedContext, withPool } from '../contexts.js';
import { exportFiles } from '@audit/shared/export-jobs';
import { createClickHouse } from '@audit/shared/platform';
import { policyView, purgeRepository } from '@audit/shared/retention';
import { parseRetentionPurge, parseRetentionSet, parseRetentionShow } from '../domain/retention-request.js';
import { HELP } from '../help.js';
import { CliError } from './cli-error.js';
import { purgeStatusView, purgeView } from './retention-purge-view.js';
import { policyText, purgeStatusText, purgeText } from './retention-text.js';
import { purgeTenant } from './retention-purge.command.js';
import { retentionCommands } from './retention.command.js';

// A deletion returns once ClickHouse has its mutation, but the summary's settling reads the tenant's whole history
// under the horizon in one statement (2 million events took over two minutes on a loaded 2-core machine): as long
// as a backfill's statements may take.
const PURGE_STATEMENT_MS = 6 * 3600 * 1000;
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
    const clickhouse = createClickHouse(config.clickhouse, config.clickhouse.database, PURGE_STATEMENT_MS);
    try {
      const report = await withAuditedContext(config, logger, (ctx) =>
        purgeTenant(
          {
            ...ctx,
            clickhouse,
            database: config.clickhouse.database,
            files: exportFiles(config.exportStorage),
            cluster: config.clickhouse.cluster ?? null,
            now: Date.now,
            note,
          },
          tenant,
          dry_run,
        ),
      );
      return print(purgeView(report), purgeText(report));
    } finally {
      await clickhouse.close();
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
