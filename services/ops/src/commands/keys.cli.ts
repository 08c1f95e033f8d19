import { withKeysContext, withPool } from '../contexts.js';
import { parseKeyRequest } from '../domain/key-request.js';
import { HELP } from '../help.js';
import { formatKeyLine, formatMinted } from '../output.js';
import type { CliContext, CliValues } from '../cli-values.js';
import { CliError } from './cli-error.js';
import { checkPrefix, keysCommands } from './keys.command.js';

export async function keysCli(
  sub: string | undefined,
  values: CliValues,
  { config, logger, print }: CliContext,
) {
  switch (sub) {
    case 'create': {
      const parsed = parseKeyRequest(values);
      if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
      const minted = await withKeysContext(config, logger, (ctx) => keysCommands.create(ctx, parsed.request));
      return print(minted, formatMinted(minted));
    }
    case 'list': {
      const list = await withPool(config, logger, (pool) => keysCommands.list(pool, values.tenant));
      return print(list, list.map(formatKeyLine).join('\n') || 'no keys');
    }
    case 'revoke': {
      const prefix = checkPrefix(values.prefix);
      const { record, changed } = await withKeysContext(config, logger, (ctx) =>
        keysCommands.revoke(ctx, prefix),
      );
      return print({ ...record, changed }, `${record.prefix} ${changed ? 'revoked' : 'was already revoked'}`);
    }
    case 'rotate': {
      const prefix = checkPrefix(values.prefix);
      const minted = await withKeysContext(config, logger, (ctx) => keysCommands.rotate(ctx, prefix));
      return print(
        minted,
        `${formatMinted(minted)}\nthe old key ${minted.rotated_from} stays live until revoked`,
      );
    }
    default:
      throw new CliError(`unknown keys command: ${sub ?? '(none)'}\n\n${HELP.keys}`, 2);
  }
}
