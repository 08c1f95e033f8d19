import { generationTopicStates } from '@audit/shared/audit-topic';
import { clusterGuard, createClickHouse, schemaWriter } from '@audit/shared/platform';
import { projectionStateStore } from '@audit/shared/projection';
import { onlyOptions, type CliContext, type CliValues } from '../cli-values.js';
import { operatorOf, withKafka, withOperationsContext } from '../contexts.js';
import { parseReplayProjection, parseReplayWebhooks } from '../domain/replay-request.js';
import { HELP } from '../help.js';
import { CliError } from './cli-error.js';
import { abortReplay, replayProjection } from './replay-projection.command.js';
import { replayWebhooks } from './replay-webhooks.command.js';

const COPY_TIMEOUT_MS = 6 * 3600 * 1000;

export async function replayCli(sub: string | undefined, values: CliValues, cli: CliContext) {
  const { config, logger, print, progress } = cli;
  if (sub !== 'webhooks' && sub !== 'projection')
    throw new CliError(`unknown replay command: ${sub ?? '(none)'}\n\n${HELP.replay}`, 2);
  const stray = onlyOptions(
    values,
    `replay ${sub}`,
    sub === 'projection'
      ? ['since', 'abort', 'drop-old-after']
      : ['tenant', 'endpoint', 'since', 'until', 'dry-run'],
  );
  if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
  if (sub === 'projection') return replayProjectionCli(values, cli);
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

async function replayProjectionCli(values: CliValues, { config, logger, print, progress, note }: CliContext) {
  const parsed = parseReplayProjection(values, Date.now());
  if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
  const r = parsed.request;
  // Copying what was ingested before --since may take long on a large projection.
  const clickhouse = createClickHouse(config.clickhouse, config.clickhouse.database, COPY_TIMEOUT_MS);
  try {
    await withKafka(config, logger, async ({ kafka, admin, topics }) => {
      const generations = await generationTopicStates(admin, topics.auditEvents.name);
      if (!r.abort && generations.at(-1)?.open === false)
        throw new CliError(
          `a growth of the audit topic is under way (${generations.at(-1)!.topic} not open yet): finish it with ` +
            'ops topics grow first',
        );
      const ctx = {
        kafka,
        auditTopics: generations.map((g) => g.topic),
        clickhouse,
        database: config.clickhouse.database,
        schema: schemaWriter(clickhouse, config.clickhouse),
        guard: await clusterGuard(clickhouse, config.clickhouse.cluster),
        store: projectionStateStore(clickhouse),
        projectorGroupId: config.projectorGroupId,
        operator: operatorOf(config),
        now: Date.now,
        progress,
        note,
      };
      if (r.abort) {
        const a = await abortReplay(ctx);
        return print(
          a,
          a.aborted
            ? `replay given up: generation ${a.live} stays live, generation ${a.dropped} dropped`
            : `no replay in progress: generation ${a.live} is live`,
        );
      }
      const done = await replayProjection(ctx, { since: r.since, dropOldAfterMs: r['drop-old-after'] });
      print(
        done,
        `generation ${done.generation} is live: ${done.records_replayed} records replayed, ${done.events} events, in ${done.duration_ms} ms (writes held ${done.writes_held_ms} ms); generation ${done.previous} dropped`,
      );
    });
  } finally {
    await clickhouse.close();
  }
}
