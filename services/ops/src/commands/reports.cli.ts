import { constants } from 'node:fs';
import { access, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { integrityStore } from '@audit/shared/integrity';
import { createClickHouse } from '@audit/shared/platform';
import { filterIndexState, liveTables, projectionStateStore } from '@audit/shared/projection';
import { readPatientAccess, resolveWindow } from '@audit/shared/reports';
import { tenantProfilesRepository } from '@audit/shared/tenants';
import { onlyOptions, type CliContext, type CliValues } from '../cli-values.js';
import { withAuditedContext } from '../contexts.js';
import { parsePatientAccessRequest } from '../domain/patient-access-request.js';
import { HELP } from '../help.js';
import { CliError } from './cli-error.js';
import { patientAccessReport, type PatientAccessContext } from './reports.command.js';

const REPORT_OPTIONS = [
  'tenant',
  'patient',
  'since',
  'until',
  'mode',
  'sort',
  'order',
  'format',
  'out',
] as const;

/**
 * Checked before anything is read: a report goes only to a new file in a directory that exists, so that a wrong
 * path is a usage error rather than a read recorded in the trail that gave nothing, and no file is overwritten.
 */
async function checkOut(path: string) {
  const exists = await stat(path).then(
    () => true,
    (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? false : Promise.reject(err)),
  );
  if (exists) throw new CliError(`--out ${path} exists: give a new file`, 2);
  await access(dirname(path), constants.W_OK).catch((err: Error) => {
    throw new CliError(`--out ${path}: ${err.message}`, 2);
  });
}

/** `ops reports patient-access` (docs/operations.md "Tenant names and patient access reports"). */
export async function reportsCli(
  sub: string | undefined,
  values: CliValues,
  { config, logger, print, output }: CliContext,
) {
  if (sub !== 'patient-access')
    throw new CliError(`unknown reports command: ${sub ?? '(none)'}\n\n${HELP.reports}`, 2);
  const stray = onlyOptions(values, `reports ${sub}`, REPORT_OPTIONS);
  if (stray.length > 0) throw new CliError(stray.join('\n'), 2);
  const parsed = parsePatientAccessRequest(values);
  if (!parsed.ok) throw new CliError(parsed.errors.join('\n'), 2);
  const r = parsed.request;
  const now = Date.now();
  const window = resolveWindow(r, now);
  if (window.since >= window.until)
    throw new CliError('--since: must be earlier than --until (which defaults to now)', 2);
  if (r.out !== undefined) await checkOut(r.out);

  const clickhouse = createClickHouse(config.clickhouse, config.clickhouse.database);
  const made = await withAuditedContext(config, logger, ({ pool, publisher, operator }) => {
    const live = liveTables(projectionStateStore(clickhouse), filterIndexState(clickhouse));
    const integrity = integrityStore(pool);
    const ctx: PatientAccessContext = {
      rows: async (tenant, filters) =>
        readPatientAccess({ clickhouse, integrity }, await live(), tenant, filters),
      tenantName: (tenant) => tenantProfilesRepository.displayName(pool, tenant),
      publisher,
      operator,
    };
    return patientAccessReport(ctx, r, window, now);
  }).finally(() => clickhouse.close());

  if (r.out === undefined) {
    // Text only: a PDF always has --out. `output` ends the text with "\n", so the CSV's last line break is left
    // to it ("\r" is kept) and stdout has the CSV's own bytes; JSON and FHIR are single lines.
    const text = made.body as string;
    return output(r.format === 'csv' ? text.slice(0, -1) : text);
  }
  const path = resolve(r.out);
  // The report shows PHI: readable by its owner only, and never written over a file that appeared meanwhile.
  await writeFile(path, made.body, { mode: 0o600, flag: 'wx' }).catch((err: Error) => {
    throw new CliError(
      `the read was recorded as report ${made.reportId}, but ${path} was not written: ${err.message}`,
    );
  });
  const bytes = typeof made.body === 'string' ? Buffer.byteLength(made.body) : made.body.length;
  print(
    { path, format: r.format, rows: made.rows, bytes, report_id: made.reportId },
    `${path}: ${r.format}, ${made.rows} rows, ${bytes} bytes (report ${made.reportId})`,
  );
}
