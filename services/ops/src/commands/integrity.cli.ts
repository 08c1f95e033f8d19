import { readFile } from 'node:fs/promises';
import { formatTimestamp, TENANT_ID_PATTERN } from '@audit/shared/contract';
import {
  keyDirectoryVerifierKeys,
  parseVerifierKey,
  printable,
  TreeStoreDamagedError,
  verifierKeysOfText,
} from '@audit/shared/integrity';
import { createClickHouse } from '@audit/shared/platform';
import { onlyOptions, type CliContext, type CliValues } from '../cli-values.js';
import { withAuditedContext, withPool } from '../contexts.js';
import { HELP } from '../help.js';
import { formatTable } from '../output.js';
import { CliError } from './cli-error.js';
import { checkKeyName, integrityKeysCommands, type KeyChange } from './integrity-keys.command.js';
import { verifyTenant, type VerifyContext, type VerifyReport } from './integrity-verify.command.js';

const changed = (c: KeyChange) =>
  [
    `key ${c.key.name} is active${c.replaced ? `; ${c.replaced} is retired` : ''}`,
    `verifier key: ${c.key.verifier_key}`,
    `private key: ${c.key_file}`,
    `audit events: ${c.tenants} tenant trail(s)`,
  ].join('\n');

const findingLine = (f: VerifyReport['findings'][number]) =>
  f.kind === 'checkpoint'
    ? `checkpoint ${f.tree_size}: ${f.problem}`
    : f.kind === 'key'
      ? `key ${f.name}: ${f.problem}`
      : `${f.kind} ${f.event_id}${'leaf_index' in f ? ` (leaf ${f.leaf_index})` : ''}`;

const DATABASE_ONLY =
  'WARNING: the checkpoints are checked against the keys the database holds, and nothing else: whoever can ' +
  'write the database can add a key and sign what they like with it. Pin the keys with --keys FILE (GET ' +
  "/audit/integrity/keys's answer kept apart, or verifier keys one per line) or INTEGRITY_KEY_DIR.";

/** The keys pinned outside Postgres: the keys file given, else the key directory's, else none (null). */
async function pinnedKeys(file: string | undefined, keyDir: string): Promise<VerifyContext['pinned']> {
  if (file !== undefined) {
    const text = await readFile(file, 'utf8').catch((err: unknown) => {
      throw new CliError(`--keys: ${(err as Error).message}`, 2);
    });
    const read = verifierKeysOfText(text);
    if ('problem' in read) throw new CliError(`--keys ${file}: ${read.problem}`, 2);
    return { source: 'file', keys: read.keys };
  }
  const texts = await keyDirectoryVerifierKeys(keyDir).catch((err: unknown) => {
    throw new CliError(`INTEGRITY_KEY_DIR ${keyDir}: ${(err as Error).message}`, 2);
  });
  const keys = texts.map((text) => parseVerifierKey(text)!);
  return keys.length > 0 ? { source: 'key directory', keys } : null;
}

/** `ops integrity verify --tenant T` (docs/integrity.md "Verify"); exit 1 when anything is found. */
async function verifyCli(values: CliValues, { config, logger, print, note }: CliContext): Promise<number> {
  const stray = onlyOptions(values, 'integrity verify', ['tenant', 'keys']);
  if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
  if (!values.tenant || !TENANT_ID_PATTERN.test(values.tenant))
    throw new CliError('--tenant must be a tenant id', 2);
  const tenant = values.tenant;
  const pinned = await pinnedKeys(values.keys, config.integrity.keyDir);
  if (!pinned) note(DATABASE_ONLY);
  const clickhouse = createClickHouse(config.clickhouse);
  try {
    const report = await withPool(config, logger, (pool) =>
      verifyTenant({ pool, clickhouse, logName: config.integrity.logName, pinned }, tenant),
    ).catch((err: unknown) => {
      // A damaged tree store is a failed verification (exit 1) with no report: the leaves cannot be compared.
      throw err instanceof TreeStoreDamagedError
        ? new CliError(`the tree store is damaged: ${err.message}`)
        : err;
    });
    print(
      report,
      [
        `${report.tenant}: ${report.rows} rows, ${report.leaves} leaves, ${report.checkpoints} checkpoints; ` +
          `keys from the ${report.keys.source} (${report.keys.trusted})`,
        ...(report.purged_before === null
          ? []
          : [
              `${report.purged} leaves purged by the retention policy (events before ${report.purged_before})`,
            ]),
        // Findings name what the stores hold (event ids, key names): whoever wrote them is not to write to the
        // operator's terminal.
        ...report.findings.map((f) => printable(findingLine(f))),
        report.ok ? 'everything verifies' : `${report.findings.length} problem(s)`,
      ].join('\n'),
    );
    return report.ok ? 0 : 1;
  } finally {
    await clickhouse.close();
  }
}

/** `ops integrity keys create|list|rotate` (docs/integrity.md "Signing keys") and `ops integrity verify`. */
export async function integrityCli(
  sub: string | undefined,
  action: string | undefined,
  values: CliValues,
  cli: CliContext,
): Promise<number> {
  if (sub === 'verify') return verifyCli(values, cli);
  const { config, logger, print } = cli;
  if (sub !== 'keys')
    throw new CliError(`unknown integrity command: ${sub ?? '(none)'}\n\n${HELP.integrity}`, 2);
  const allowed = { create: ['name', 'if-none'], rotate: ['name'], list: [] } as const;
  if (!action || !(action in allowed))
    throw new CliError(`unknown integrity keys command: ${action ?? '(none)'}\n\n${HELP.integrity}`, 2);
  const stray = onlyOptions(values, `integrity keys ${action}`, allowed[action as keyof typeof allowed]);
  if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
  const name = checkKeyName(values.name);
  const settings = config.integrity;
  if (action === 'list') {
    const keys = await withPool(config, logger, (pool) => integrityKeysCommands.list({ pool, settings }));
    const rows = keys.map((k) => [
      k.name,
      k.status,
      formatTimestamp(k.created_at.getTime()),
      k.retired_at ? formatTimestamp(k.retired_at.getTime()) : '-',
      k.private_key_here ? 'here' : '-',
      k.verifier_key,
    ]);
    print(
      keys,
      keys.length === 0
        ? 'no keys'
        : formatTable(['name', 'status', 'created', 'retired', 'private', 'verifier key'], rows),
    );
    return 0;
  }
  const change = await withAuditedContext(config, logger, async (ctx) => {
    const context = { ...ctx, settings, now: Date.now };
    if (action === 'rotate') return integrityKeysCommands.rotate(context, name);
    if (values['if-none']) {
      const [active] = await integrityKeysCommands.list(context);
      if (active?.status === 'active') return { unchanged: active };
    }
    return integrityKeysCommands.create(context, name);
  });
  if ('unchanged' in change) {
    print(
      { changed: false, key: change.unchanged },
      `key ${change.unchanged.name} is active already: nothing to do`,
    );
    return 0;
  }
  print({ changed: true, ...change }, changed(change));
  return 0;
}
