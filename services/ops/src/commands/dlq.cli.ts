import { onlyOptions, type CliContext, type CliValues } from '../cli-values.js';
import { withOperationsContext } from '../contexts.js';
import { parseDlqRequest } from '../domain/dlq-request.js';
import { HELP } from '../help.js';
import { formatTable } from '../output.js';
import { CliError } from './cli-error.js';
import { dlqList, dlqRedrive, dlqShow, type ListedDeadLetter } from './dlq.command.js';

const LIST_LIMIT = 100;

const origin = (v: ListedDeadLetter) =>
  v.origin ? `${v.origin.topic}:${v.origin.partition}:${v.origin.offset}` : null;
const shorten = (text: string | null, max = 80) =>
  text && text.length > max ? `${text.slice(0, max - 1)}…` : text;

function listText(result: Awaited<ReturnType<typeof dlqList>>): string {
  const webhooks = result.queue === 'webhooks';
  const header = `${result.topic}: ${result.kept} kept, ${result.pending} pending redrive, ${result.matching} shown here`;
  const rows = result.records.map((v) => [
    `${v.partition}:${v.offset}`,
    v.failed_at,
    v.tenant_id,
    ...(webhooks ? [v.endpoint_id, v.event_id, v.attempts] : [v.stage]),
    origin(v),
    v.redriven_at ?? 'pending',
    shorten(v.error),
  ]);
  const columns = [
    'at',
    'failed_at',
    'tenant',
    ...(webhooks ? ['endpoint', 'event', 'attempts'] : ['stage']),
  ];
  return `${header}\n${formatTable([...columns, 'origin', 'redriven', 'error'], rows)}`;
}

export async function dlqCli(
  sub: string | undefined,
  values: CliValues,
  { config, logger, print, progress }: CliContext,
) {
  if (sub !== 'list' && sub !== 'show' && sub !== 'redrive') {
    throw new CliError(`unknown dlq command: ${sub ?? '(none)'}\n\n${HELP.dlq}`, 2);
  }
  const allowed = {
    list: ['queue', 'all', 'tenant', 'endpoint', 'limit'],
    show: ['queue', 'offset', 'partition'],
    redrive: ['queue', 'tenant', 'endpoint', 'offset', 'partition', 'to', 'limit', 'dry-run'],
  } as const;
  const stray = onlyOptions(values, `dlq ${sub}`, allowed[sub]);
  if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
  if (sub === 'show' && values.offset === undefined) throw new CliError('dlq show needs --offset', 2);
  const parsed = parseDlqRequest({
    ...values,
    limit: values.limit ?? (sub === 'list' ? String(LIST_LIMIT) : undefined),
  });
  if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
  const r = parsed.request;
  const filter = { tenant: r.tenant, endpoint: r.endpoint, partition: r.partition, offset: r.offset };
  return withOperationsContext(config, logger, progress, async (ctx) => {
    if (sub === 'list') {
      const result = await dlqList(ctx, r.queue, { ...filter, all: r.all, limit: r.limit });
      return print(result, listText(result));
    }
    if (sub === 'show') {
      const shown = await dlqShow(ctx, r.queue, { partition: r.partition ?? 0, offset: r.offset! });
      return print(shown, JSON.stringify(shown, null, 2));
    }
    const result = await dlqRedrive(ctx, r.queue, {
      ...filter,
      to: r.to,
      limit: r.limit,
      dryRun: r['dry-run'],
    });
    const verb = result.dry_run ? 'would redrive' : 'redrove';
    const lines = [
      `${verb} ${result.redriven.length} of ${result.matching} pending dead letters${result.skipped.length ? `; skipped ${result.skipped.length}` : ''}`,
      ...result.skipped.map((s) => `  skipped ${s.partition}:${s.offset}: ${s.reason}`),
    ];
    return print(result, lines.join('\n'));
  });
}
