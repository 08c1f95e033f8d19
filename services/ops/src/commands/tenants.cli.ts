import { onlyOptions, type CliContext, type CliValues } from '../cli-values.js';
import { withAuditedContext, withPool } from '../contexts.js';
import { parseTenantSetName, parseTenantShow } from '../domain/tenant-request.js';
import { HELP } from '../help.js';
import { quoted } from '../output.js';
import { CliError } from './cli-error.js';
import { tenantsCommands } from './tenants.command.js';

/** `ops tenants show|set-name` (docs/operations.md "Tenant names and patient access reports"). */
export async function tenantsCli(
  sub: string | undefined,
  values: CliValues,
  { config, logger, print }: CliContext,
) {
  const allowed = { show: ['tenant'], 'set-name': ['tenant', 'name'] } as const;
  if (sub !== 'show' && sub !== 'set-name') {
    throw new CliError(`unknown tenants command: ${sub ?? '(none)'}\n\n${HELP.tenants}`, 2);
  }
  const stray = onlyOptions(values, `tenants ${sub}`, allowed[sub]);
  if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
  if (sub === 'show') {
    const parsed = parseTenantShow(values);
    if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
    const shown = await withPool(config, logger, (pool) => tenantsCommands.show(pool, parsed.request.tenant));
    return print(
      shown,
      shown.display_name === null
        ? `${shown.tenant_id}: no name given; its reports are headed with its id`
        : `${shown.tenant_id}: ${quoted(shown.display_name)}`,
    );
  }
  const parsed = parseTenantSetName(values);
  if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
  const { tenant, name } = parsed.request;
  const set = await withAuditedContext(config, logger, (ctx) => tenantsCommands.setName(ctx, tenant, name));
  const was = set.previous === null ? 'it had no name' : `was ${quoted(set.previous)}`;
  return print(set, `${tenant} is named ${quoted(name)} (${was})`);
}
