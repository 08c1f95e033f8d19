import { onlyOptions, type CliContext, type CliValues } from '../cli-values.js';
import { withAuditedContext, withPool } from '../contexts.js';
import { parseRetentionSet, parseRetentionShow } from '../domain/retention-request.js';
import { policyView } from '@audit/shared/retention';
import { HELP } from '../help.js';
import { CliError } from './cli-error.js';
import { policyText } from './retention-text.js';
import { retentionCommands } from './retention.command.js';

/** `ops retention show|set` (docs/operations.md "Retention and legal holds"). */
export async function retentionCli(
  sub: string | undefined,
  values: CliValues,
  { config, logger, print }: CliContext,
) {
  const allowed = { show: ['tenant'], set: ['tenant', 'min-days', 'max-days', 'no-max'] } as const;
  if (sub !== 'show' && sub !== 'set') {
    throw new CliError(`unknown retention command: ${sub ?? '(none)'}\n\n${HELP.retention}`, 2);
  }
  const stray = onlyOptions(values, `retention ${sub}`, allowed[sub]);
  if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
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
