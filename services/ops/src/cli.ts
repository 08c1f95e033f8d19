import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import {
  auditEventCodec,
  auditPublisher,
  bootstrapKafka,
  createLogger,
  loggableError,
  DurableProducer,
  migratePostgres,
  systemClock,
  type Env,
  type Logger,
} from '@audit/shared';
import { CliError } from './commands/cli-error.js';
import { checkPrefix, keysCommands, type KeysContext } from './commands/keys.command.js';
import { migrateCommand } from './commands/migrate.command.js';
import { loadConfig, type OpsConfig } from './config.js';
import { parseKeyRequest } from './domain/key-request.js';
import { formatKeyLine, formatMinted } from './output.js';

const HELP = `Usage: npm run --silent ops -- <command> [options] [--json]

Commands:
  migrate                                     apply ClickHouse and Postgres migrations, create missing topics
  keys create --tenant T --scopes a,b [--ip-allow CIDR,...] [--label L]
                                              mint a key; the full key is printed once
  keys list [--tenant T]                      keys without their secrets
  keys revoke --prefix P                      revoke a key (401 for it within seconds)
  keys rotate --prefix P                      a new key with the same tenant, scopes and allow-list
  help                                        this text

Scopes: audit:read, audit:export, webhooks:write. Every command prints JSON with --json.
Exit codes: 0 done, 1 failed, 2 wrong usage.
`;

const OPTIONS = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
  tenant: { type: 'string' },
  scopes: { type: 'string' },
  'ip-allow': { type: 'string' },
  label: { type: 'string' },
  prefix: { type: 'string' },
} as const;

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

async function withPool<T>(
  config: OpsConfig,
  logger: Logger,
  run: (pool: pg.Pool) => Promise<T>,
): Promise<T> {
  await migratePostgres(config.databaseUrl);
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 2, connectionTimeoutMillis: 5000 });
  pool.on('error', (err) => logger.warn({ err: loggableError(err) }, 'idle Postgres connection failed'));
  try {
    return await run(pool);
  } finally {
    await pool.end();
  }
}

/** Postgres, Kafka and the pepper: what a key change needs (and only a key change). */
async function withKeysContext<T>(config: OpsConfig, logger: Logger, run: (ctx: KeysContext) => Promise<T>) {
  const pepper = config.apiKeyPepper;
  if (!pepper) {
    throw new CliError(
      'API_KEY_PEPPER is required for key changes (in a checkout, `npm start` creates one)',
      2,
    );
  }
  return withPool(config, logger, async (pool) => {
    const { kafka, topics } = await bootstrapKafka(config.kafka, logger, '-ops');
    const producer = new DurableProducer(kafka);
    try {
      await producer.connect();
      const publisher = auditPublisher({
        producer,
        topic: topics.auditEvents.name,
        codec: auditEventCodec(),
        clock: systemClock,
      });
      const operator = { id: config.operatorId ?? `operator:${userInfo().username}` };
      return await run({ pool, publisher, pepper, env: config.apiKeyEnv, operator });
    } finally {
      await producer.disconnect();
    }
  });
}

async function keys(sub: string | undefined, values: Values, config: OpsConfig, logger: Logger, io: CliIo) {
  const print = (json: unknown, human: string) => io.out(values.json ? JSON.stringify(json) : human);
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
      throw new CliError(`unknown keys command: ${sub ?? '(none)'}\n\n${HELP}`, 2);
  }
}

/** Returns the exit code; every command prints JSON with --json and a short human text otherwise. */
export async function runCli(argv: string[], env: Env, io: CliIo): Promise<number> {
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
    } catch (err) {
      throw new CliError(`${(err as Error).message}\n\n${HELP}`, 2);
    }
    const { positionals, values } = parsed;
    const [command, sub] = positionals;
    if (!command || command === 'help' || values.help) {
      io.out(HELP);
      return 0;
    }
    const config = loadConfig(env);
    // Results are the command's output; only problems are logged (to stderr).
    const logger = createLogger('ops', config.logLevel === 'info' ? 'warn' : config.logLevel, 2);
    if (command === 'migrate') {
      const result = await migrateCommand(config, logger);
      io.out(
        values.json
          ? JSON.stringify(result)
          : `clickhouse: ${result.clickhouse.join(', ') || 'up to date'}\npostgres: ${result.postgres.join(', ') || 'up to date'}\ntopics: ${result.topics.join(', ')}`,
      );
      return 0;
    }
    if (command === 'keys') {
      await keys(sub, values, config, logger, io);
      return 0;
    }
    throw new CliError(`unknown command: ${command}\n\n${HELP}`, 2);
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`error: ${err.message}`);
      return err.exitCode;
    }
    throw err;
  }
}
