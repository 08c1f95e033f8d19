import { formatTimestamp } from '@audit/shared/contract';
import { type ExportJob } from '@audit/shared/export-jobs';
import { onlyOptions, type CliContext, type CliValues } from '../cli-values.js';
import { withAuditedContext, withPool } from '../contexts.js';
import { HELP } from '../help.js';
import { CliError } from './cli-error.js';
import { checkJobId, checkStatus, exportsCommands } from './exports.command.js';

const DEFAULT_LIMIT = 100;

/** A job as JSON: the stored job with its times in RFC 3339, as the API renders them. */
function jobJson(job: ExportJob) {
  const time = (ms: number | null) => (ms === null ? null : formatTimestamp(ms));
  return {
    ...job,
    since: time(job.since),
    until: time(job.until),
    acceptedAt: time(job.acceptedAt),
    startedAt: time(job.startedAt),
    finishedAt: time(job.finishedAt),
    expiresAt: time(job.expiresAt),
  };
}

function jobLine(job: ExportJob): string {
  const rows = `${job.rowsWritten}/${job.rowsExpected ?? '?'} rows`;
  const error = job.error ? `  ${job.error.code}: ${job.error.message}` : '';
  return `${job.jobId}  ${job.tenantId}  ${job.format}  ${job.status}  ${rows}  ${formatTimestamp(job.acceptedAt)}${error}`;
}

function limitOf(values: CliValues): number {
  if (values.limit === undefined) return DEFAULT_LIMIT;
  const n = Number(values.limit);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new CliError('--limit must be 1 to 10000', 2);
  return n;
}

/** `ops exports list|show|cancel` (docs/exports.md "Operations"). */
export async function exportsCli(
  sub: string | undefined,
  values: CliValues,
  { config, logger, print, note }: CliContext,
) {
  const allowed = { list: ['tenant', 'status', 'limit'], show: ['id', 'wait'], cancel: ['id'] } as const;
  if (sub !== 'list' && sub !== 'show' && sub !== 'cancel') {
    throw new CliError(`unknown exports command: ${sub ?? '(none)'}\n\n${HELP.exports}`, 2);
  }
  const stray = onlyOptions(values, `exports ${sub}`, allowed[sub]);
  if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
  switch (sub) {
    case 'list': {
      const where = {
        ...(values.tenant ? { tenantId: values.tenant } : {}),
        ...(values.status ? { status: checkStatus(values.status) } : {}),
      };
      const limit = limitOf(values);
      const list = await withPool(config, logger, (pool) => exportsCommands.list(pool, where, limit));
      return print(list.map(jobJson), list.map(jobLine).join('\n') || 'no export jobs');
    }
    case 'show': {
      const id = checkJobId(values.id);
      const job = await withPool(config, logger, (pool) =>
        values.wait
          ? exportsCommands.follow(pool, id, (j) => note(jobLine(j)))
          : exportsCommands.show(pool, id),
      );
      return print(jobJson(job), jobLine(job));
    }
    case 'cancel': {
      const id = checkJobId(values.id);
      const { job, changed } = await withAuditedContext(config, logger, (ctx) =>
        exportsCommands.cancel(ctx, id),
      );
      return print(
        { ...jobJson(job), changed },
        changed ? `${id} cancelled` : `${id} had already ended: ${job.status}`,
      );
    }
  }
}
