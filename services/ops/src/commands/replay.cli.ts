import type { Logger } from '@audit/shared';
import type { CliValues, Print } from '../cli-values.js';
import type { OpsConfig } from '../config.js';
import { withOperationsContext } from '../contexts.js';
import { parseReplayWebhooks } from '../domain/replay-request.js';
import { HELP } from '../help.js';
import { CliError } from './cli-error.js';
import { replayWebhooks } from './replay-webhooks.command.js';

export async function replayCli(
  sub: string | undefined,
  values: CliValues,
  config: OpsConfig,
  logger: Logger,
  print: Print,
  progress: (read: number, total: number) => void,
) {
  if (sub !== 'webhooks')
    throw new CliError(`unknown replay command: ${sub ?? '(none)'}\n\n${HELP.replay}`, 2);
  const parsed = parseReplayWebhooks(values, Date.now());
  if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
  const result = await withOperationsContext(config, logger, progress, (ctx) =>
    replayWebhooks(ctx, parsed.request),
  );
  const verb = result.dry_run ? 'would re-drive' : 're-drove';
  print(
    result,
    `${verb} ${result.events_replayed} events of ${result.tenant} ingested ${result.since} .. ${result.until} to ${result.endpoint} (${result.records_read} records read, ${result.duration_ms} ms)`,
  );
}
