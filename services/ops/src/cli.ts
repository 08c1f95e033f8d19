import { parseArgs } from 'node:util';
import { createLogger, type Env } from '@audit/shared';
import { migrateCommand } from './commands/migrate.command.js';
import { loadConfig } from './config.js';

const HELP = `Usage: npm run --silent ops -- <command> [--json]

Commands:
  migrate   apply ClickHouse and Postgres migrations and create missing Kafka topics (re-runnable)
  help      this text
`;

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Returns the exit code; every command prints JSON with --json and a short human text otherwise. */
export async function runCli(argv: string[], env: Env, io: CliIo): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
  });
  const [command] = positionals;
  if (!command || command === 'help' || values.help) {
    io.out(HELP);
    return command && command !== 'help' && !values.help ? 2 : 0;
  }
  const config = loadConfig(env);
  // Progress and results are the command's output; only problems are logged (to stderr).
  const logger = createLogger('ops', config.logLevel === 'info' ? 'warn' : config.logLevel, 2);
  switch (command) {
    case 'migrate': {
      const result = await migrateCommand(config, logger);
      io.out(
        values.json
          ? JSON.stringify(result)
          : `clickhouse: ${result.clickhouse.join(', ') || 'up to date'}\npostgres: ${result.postgres.join(', ') || 'up to date'}\ntopics: ${result.topics.join(', ')}`,
      );
      return 0;
    }
    default:
      io.err(`unknown command: ${command}\n\n${HELP}`);
      return 2;
  }
}
