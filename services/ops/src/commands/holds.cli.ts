import { onlyOptions, type CliContext, type CliValues } from '../cli-values.js';
import { withAuditedContext, withPool } from '../contexts.js';
import { parseHoldCreate, parseHoldRelease, parseHoldsList, SCOPE_OPTIONS } from '../domain/hold-request.js';
import { holdView } from '@audit/shared/retention';
import { HELP } from '../help.js';
import { CliError } from './cli-error.js';
import { holdsCommands } from './holds.command.js';
import { holdsTable, holdText, releaseText } from './retention-text.js';

/** `ops holds list|create|release` (docs/operations.md "Retention and legal holds"). */
export async function holdsCli(
  sub: string | undefined,
  values: CliValues,
  { config, logger, print }: CliContext,
) {
  const allowed = {
    list: ['tenant', 'status'],
    create: ['tenant', 'reason', ...Object.values(SCOPE_OPTIONS)],
    release: ['tenant', 'id', 'reason'],
  } as const;
  if (sub !== 'list' && sub !== 'create' && sub !== 'release') {
    throw new CliError(`unknown holds command: ${sub ?? '(none)'}\n\n${HELP.holds}`, 2);
  }
  const stray = onlyOptions(values, `holds ${sub}`, allowed[sub]);
  if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
  switch (sub) {
    case 'list': {
      const parsed = parseHoldsList(values);
      if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
      const { tenant, status } = parsed.request;
      const holds = await withPool(config, logger, (pool) => holdsCommands.list(pool, tenant, status));
      const none = `${tenant}: no ${status === 'all' ? '' : `${status} `}holds`;
      return print(
        { tenant_id: tenant, status, holds: holds.map(holdView) },
        holds.length === 0 ? none : holdsTable(holds, status !== 'active'),
      );
    }
    case 'create': {
      const parsed = parseHoldCreate(values);
      if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
      const { tenant, hold } = parsed.request;
      const created = await withAuditedContext(config, logger, (ctx) =>
        holdsCommands.create(ctx, tenant, hold),
      );
      return print(
        { tenant_id: tenant, hold: holdView(created) },
        `${tenant}: ${holdText(created)} ${releaseText(created)}`,
      );
    }
    case 'release': {
      const parsed = parseHoldRelease(values);
      if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
      const { tenant, id, release } = parsed.request;
      const { hold, released } = await withAuditedContext(config, logger, (ctx) =>
        holdsCommands.release(ctx, tenant, id, release.reason),
      );
      return print(
        { tenant_id: tenant, released, hold: holdView(hold) },
        released
          ? `${tenant}: ${holdText(hold)} ${releaseText(hold)}`
          : `${tenant}: ${holdText(hold)} was ${releaseText(hold)} already: nothing changed`,
      );
    }
  }
}
