import { parseArgs } from 'node:util';
import { createClickHouse, createLogger, schemaWriter, type Env } from '@audit/shared/platform';
import { OPTIONS, onlyOptions, type CliContext, type Print } from './cli-values.js';
import { backfillFilterIndex } from './commands/backfill.command.js';
import { CliError } from './commands/cli-error.js';
import { dlqCli } from './commands/dlq.cli.js';
import { exportsCli } from './commands/exports.cli.js';
import { holdsCli } from './commands/holds.cli.js';
import { integrityCli } from './commands/integrity.cli.js';
import { keysCli } from './commands/keys.cli.js';
import { lagCommand } from './commands/lag.command.js';
import { migrateCommand } from './commands/migrate.command.js';
import { replayCli } from './commands/replay.cli.js';
import { reportsCli } from './commands/reports.cli.js';
import { retentionCli } from './commands/retention.cli.js';
import { statusCommand } from './commands/status.command.js';
import { tenantsCli } from './commands/tenants.cli.js';
import { topicsCli } from './commands/topics.cli.js';
import { loadConfig } from './config.js';
import { KAFKA_READ_DEADLINE_MS, withKafka } from './contexts.js';
import { HELP, type HelpTopic } from './help.js';
import { formatAge, formatTable } from './output.js';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const PROGRESS_EVERY_MS = 1000;
// A backfill's statements copy a whole partition each.
const LONG_STATEMENT_MS = 6 * 3600 * 1000;

/** Progress of a long read on stderr, at most once a second, so stdout stays the command's output. */
function progressTo(io: CliIo) {
  let last = 0;
  return (done: number, total: number) => {
    const now = Date.now();
    if (done < total && now - last < PROGRESS_EVERY_MS) return;
    last = now;
    if (total >= 1000) io.err(`… ${done.toLocaleString('en')} of ${total.toLocaleString('en')}`);
  };
}

/** Returns the exit code; every command prints JSON with --json and a short human text otherwise. */
export async function runCli(argv: string[], env: Env, io: CliIo): Promise<number> {
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
    } catch (err) {
      throw new CliError(`${(err as Error).message}\n\n${HELP.main}`, 2);
    }
    const { positionals, values } = parsed;
    const [command, sub, action] = positionals;
    if (!command || command === 'help') {
      io.out(HELP.main);
      return 0;
    }
    if (!(command in HELP) || command === 'main')
      throw new CliError(`unknown command: ${command}\n\n${HELP.main}`, 2);
    if (values.help) {
      io.out(HELP[command as HelpTopic]);
      return 0;
    }
    const config = loadConfig(env);
    // Results are the command's output; only problems are logged (to stderr).
    const logger = createLogger('ops', config.logLevel === 'info' ? 'warn' : config.logLevel, 2);
    const print: Print = (json, human) => io.out(values.json ? JSON.stringify(json) : human);
    const cli: CliContext = {
      config,
      logger,
      print,
      output: (text) => io.out(text),
      progress: progressTo(io),
      note: (text) => io.err(text),
    };
    switch (command as Exclude<HelpTopic, 'main'>) {
      case 'migrate': {
        const r = await migrateCommand(config, logger);
        print(
          r,
          `clickhouse: ${r.clickhouse.join(', ') || 'up to date'}\npostgres: ${r.postgres.join(', ') || 'up to date'}\nlogins: ${r.logins.join(', ') || 'none given'}\ntopics: ${r.topics.join(', ')}\nexport files: ${r.exportStorage}`,
        );
        return 0;
      }
      case 'keys':
        await keysCli(sub, values, cli);
        return 0;
      case 'dlq':
        await dlqCli(sub, values, cli);
        return 0;
      case 'backfill': {
        if (sub !== 'filter-index')
          throw new CliError(`unknown backfill: ${sub ?? '(none)'}\n\n${HELP.backfill}`, 2);
        const stray = onlyOptions(values, 'backfill filter-index', []);
        if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
        const clickhouse = createClickHouse(config.clickhouse, config.clickhouse.database, LONG_STATEMENT_MS);
        try {
          const r = await backfillFilterIndex({
            clickhouse,
            schema: schemaWriter(clickhouse, config.clickhouse),
            now: Date.now,
            progress: progressTo(io),
          });
          print(
            r,
            r.already_ready
              ? `the filter index of generation ${r.generation} is complete: nothing to do`
              : `filter index of generation ${r.generation} complete: ${r.partitions} partitions, ${r.events} events copied (${r.duration_ms} ms)`,
          );
        } finally {
          await clickhouse.close();
        }
        return 0;
      }
      case 'exports':
        await exportsCli(sub, values, cli);
        return 0;
      case 'integrity':
        return await integrityCli(sub, action, values, cli);
      case 'replay':
        await replayCli(sub, values, cli);
        return 0;
      case 'topics':
        await topicsCli(sub, values, cli);
        return 0;
      case 'tenants':
        await tenantsCli(sub, values, cli);
        return 0;
      case 'reports':
        await reportsCli(sub, values, cli);
        return 0;
      case 'retention':
        await retentionCli(sub, values, cli);
        return 0;
      case 'holds':
        await holdsCli(sub, values, cli);
        return 0;
      case 'lag': {
        const report = await withKafka(config, logger, ({ kafka, topics }) =>
          lagCommand(kafka, topics, { now: Date.now, deadlineMs: KAFKA_READ_DEADLINE_MS }),
        );
        const rows = report.partitions.map((p) => [
          p.group,
          p.topic,
          p.partition,
          p.committed,
          p.end,
          p.lag,
          formatAge(p.oldest_age_ms),
        ]);
        print(
          report,
          formatTable(['group', 'topic', 'partition', 'committed', 'end', 'lag', 'oldest'], rows),
        );
        return 0;
      }
      case 'status': {
        const rows = await statusCommand({
          databaseUrl: config.databaseUrl,
          clickhouse: config.clickhouse,
          brokers: config.kafka.brokers,
          services: config.services,
        });
        print(
          {
            components: rows.filter((r) => r.kind === 'component'),
            services: rows.filter((r) => r.kind === 'service'),
          },
          formatTable(
            ['name', 'address', 'state', 'detail'],
            rows.map((r) => [r.name, r.address, r.state, r.detail]),
          ),
        );
        return rows.every((r) => r.state === 'up') ? 0 : 1;
      }
    }
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`error: ${err.message}`);
      return err.exitCode;
    }
    throw err;
  }
}
