// npm run bench:export — export jobs of one tenant's 10 million events, one per format, through the real
// gateway and exporter processes; each beside ClickHouse writing the same rows in the same format to a file itself.
import { randomUUID } from 'node:crypto';
import { rmSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  exportFileName,
  exportJobsRepository as jobs,
  type ExportJob,
  type ExportJobFormat,
} from '@audit/shared/export-jobs';
import { sleep, type ClickHouseSettings } from '@audit/shared/platform';
import { uniqueNames } from '../test/support/names.js';
import { mintKey } from '../test/support/ops-cli.js';
import { migratedPostgres } from '../test/support/postgres.js';
import {
  CLICKHOUSE_URL,
  cleanUp,
  exportDir,
  exporterService,
  gatewayService,
  projectorService,
  READER_USER,
} from '../test/support/stack.js';
import { commandCpuSeconds } from './lib/command-cpu.js';
import {
  chdbParquet,
  chdbPython,
  clickhouseGzip,
  EXTERNAL_SORT_BYTES,
  type BaselineRun,
  type Window,
} from './lib/export-baseline.js';
import { EXPORT_TENANT, loadExportDataset } from './lib/export-dataset.js';
import { csvId, gzipTextRows, jsonId, parquetRows, type FileRows } from './lib/export-files.js';
import { measurePieces } from './lib/export-pieces.js';
import { cpuSeconds } from './lib/process-cpu.js';
import { rssBytes } from './lib/process-rss.js';
import { benchResults, goal } from './lib/results.js';
import { fmt } from './lib/stats.js';
import { machineShare, systemTicks } from './lib/system-cpu.js';

const EVENTS = Number(process.env.BENCH_EXPORT_EVENTS ?? 10_000_000);
const FORMATS = (process.env.BENCH_EXPORT_FORMATS ?? 'ndjson,csv,parquet')
  .split(',')
  .filter(Boolean) as ExportJobFormat[];
// Where the time goes (export-pieces.ts): the exporter's pieces run one at a time in this process, after the jobs.
const PIECES = process.env.BENCH_EXPORT_PIECES === '1';
const PIECE_ROWS = Math.min(EVENTS, 1_000_000);
// The exporter reports its progress this often (default 1000 ms): RSS is told apart at 10 %, 50 % and 100 % by it.
const PROGRESS_MS = 250;
// How often the job's row is read, and the exporter's RSS sampled with it; the peak is sampled more often.
const POLL_MS = 100;
const PEAK_MS = 20;
const GOAL = 0.7;
const PEPPER = 'bench-pepper-0123456789abcdef0123456789';
const CURSOR_SECRET = 'bench-cursor-0123456789abcdef0123456789';
const ROOT = fileURLToPath(new URL('../', import.meta.url));

const MiB = 2 ** 20;
const mib = (bytes: number | null | undefined) => (bytes == null ? 'n/a' : fmt(bytes / MiB, 0));
const mb = (bytes: number | null | undefined) => (bytes == null ? 'n/a' : fmt(bytes / 1e6, 1));

interface ExporterRun {
  jobId: string;
  acceptedAt: number;
  seconds: number;
  rows: number;
  bytes: number;
  /** RSS when the job was created, at 10, 50 and 100 % of its progress, and its peak during the job. */
  rss: { idle: number; at10: number | null; at50: number | null; at100: number | null; peak: number };
  exporterCpu: number;
  clickhouseCpu: number;
  /** Busy share of both cores during the job, and the share of it that was neither the exporter nor ClickHouse. */
  machine: { busy: number; rest: number };
  /** Seconds from running to the first rows written: the projection check, the count and the plan. */
  firstRowsAfter: number | null;
  file: FileRows;
  path: string;
  manifest: NonNullable<ExportJob['manifest']>;
}

type Baseline = (BaselineRun & { file: FileRows }) | { missing: string };

const results = benchResults('export', ['BENCH_EXPORT_EVENTS', 'BENCH_EXPORT_FORMATS']);

/** The rows of an export file (the same reader for the exporter's and the baseline's). */
function readRows(format: ExportJobFormat, path: string): Promise<FileRows> {
  if (format === 'parquet') return parquetRows(path);
  return format === 'csv' ? gzipTextRows(path, true, csvId) : gzipTextRows(path, false, jsonId);
}

interface Stack {
  gatewayUrl: string;
  key: string;
  pool: pg.Pool;
  exporterPid: number;
  dir: string;
  window: Omit<Window, 'acceptedAt'>;
}

/**
 * One export job through the API, followed in its row until it ends, with the exporter's RSS: sampled with every
 * read of the row (tagged with the progress it reports) and every PEAK_MS for the peak.
 */
async function exportJob(s: Stack, format: ExportJobFormat): Promise<ExporterRun> {
  const pid = s.exporterPid;
  const idle = rssBytes(pid);
  const cpu0 = cpuSeconds(pid);
  const ch0 = commandCpuSeconds('clickhouse-serv');
  const sys0 = systemTicks();
  let peak = idle;
  const peakTimer = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), PEAK_MS);
  const samples: { at: number; rows: number; expected: number | null; rss: number }[] = [];
  let job: ExportJob | null;
  try {
    const res = await fetch(`${s.gatewayUrl}/api/v2/public/audit/exports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        since: new Date(s.window.since).toISOString(),
        until: new Date(s.window.until).toISOString(),
        format,
      }),
    });
    const created = (await res.json()) as { id: string };
    if (res.status !== 202) throw new Error(`POST /audit/exports: ${res.status} ${JSON.stringify(created)}`);
    for (;;) {
      job = await jobs.find(s.pool, created.id);
      const rss = rssBytes(pid);
      peak = Math.max(peak, rss);
      if (job?.status === 'running') {
        samples.push({ at: Date.now(), rows: job.rowsWritten, expected: job.rowsExpected, rss });
      }
      if (!job || (job.status !== 'queued' && job.status !== 'running')) break;
      await sleep(POLL_MS);
    }
  } finally {
    clearInterval(peakTimer);
  }
  const exporterCpu = cpuSeconds(pid) - cpu0;
  const clickhouseCpu = commandCpuSeconds('clickhouse-serv') - ch0;
  const machine = machineShare(sys0, systemTicks(), exporterCpu + clickhouseCpu);
  if (job?.status !== 'succeeded' || !job.manifest || job.startedAt === null || job.finishedAt === null) {
    throw new Error(`export job (${format}) ended ${job?.status}: ${JSON.stringify(job?.error)}`);
  }
  const at = (share: number) =>
    samples.find((x) => x.expected !== null && x.rows >= share * x.expected)?.rss ?? null;
  const first = samples.find((x) => x.rows > 0);
  const path = join(s.dir, exportFileName(job.jobId, format));
  return {
    jobId: job.jobId,
    acceptedAt: job.acceptedAt,
    seconds: (job.finishedAt - job.startedAt) / 1000,
    rows: job.manifest.rowCount,
    bytes: job.manifest.byteSize,
    rss: { idle, at10: at(0.1), at50: at(0.5), at100: samples.at(-1)?.rss ?? null, peak },
    exporterCpu,
    clickhouseCpu,
    machine,
    firstRowsAfter: first ? (first.at - job.startedAt) / 1000 : null,
    file: await readRows(format, path),
    path,
    manifest: job.manifest,
  };
}

async function baseline(
  format: ExportJobFormat,
  window: Window,
  out: string,
  python: { python: string } | { missing: string },
): Promise<Baseline> {
  if (format === 'parquet') {
    if ('missing' in python) return python;
    const run = await chdbParquet(python.python, CLICKHOUSE_URL, READER_USER, window, out);
    return { ...run, file: await readRows(format, out) };
  }
  const run = await clickhouseGzip(CLICKHOUSE_URL, READER_USER, window, format, out);
  return { ...run, file: await readRows(format, out) };
}

/** Checks a file against the events loaded; returns what is wrong, if anything. */
function check(what: string, file: FileRows, expected: { rows: number; firstId?: string; lastId?: string }) {
  const wrong: string[] = [];
  if (file.rows !== expected.rows) wrong.push(`${what}: ${file.rows} rows, expected ${expected.rows}`);
  if (expected.firstId !== undefined && file.firstId !== expected.firstId)
    wrong.push(`${what}: first event ${file.firstId}, the manifest's ${expected.firstId}`);
  if (expected.lastId !== undefined && file.lastId !== expected.lastId)
    wrong.push(`${what}: last event ${file.lastId}, the manifest's ${expected.lastId}`);
  return wrong;
}

const jobFigures = (e: ExporterRun) =>
  `${fmt(e.rows)} rows in ${fmt(e.seconds, 1)} s = ${fmt(e.rows / e.seconds)} rows/s (first rows after ${fmt(e.firstRowsAfter ?? NaN, 1)} s); ${mb(e.bytes)} MB; RSS idle ${mib(e.rss.idle)}, at 10 % ${mib(e.rss.at10)}, 50 % ${mib(e.rss.at50)}, 100 % ${mib(e.rss.at100)}, peak ${mib(e.rss.peak)} MiB; CPU: exporter ${fmt(e.exporterCpu, 1)} s (${fmt((100 * e.exporterCpu) / e.seconds)} % of a core), ClickHouse ${fmt(e.clickhouseCpu, 1)} s (${fmt((100 * e.clickhouseCpu) / e.seconds)} %); machine ${fmt(e.machine.busy)} % busy, other work ${fmt(e.machine.rest)} %`;

const baselineFigures = (format: ExportJobFormat, b: BaselineRun & { file: FileRows }) =>
  `${fmt(b.file.rows)} rows in ${fmt(b.seconds, 1)} s = ${fmt(b.file.rows / b.seconds)} rows/s; ${mb(b.bytes)} MB; CPU: ${format === 'parquet' ? 'chdb' : 'gzip (this process)'} ${fmt(b.writerCpu, 1)} s, ClickHouse ${fmt(b.clickhouseCpu, 1)} s${b.writerRss === null ? '' : `; chdb peak RSS ${mib(b.writerRss)} MiB`}`;

/** A format's job, held to GOAL of its baseline's rate when there is one, and its baseline; both rates charted. */
function recordFormat(format: ExportJobFormat, e: ExporterRun, b: Baseline) {
  const rate = e.rows / e.seconds;
  const base = 'missing' in b ? null : b.file.rows / b.seconds;
  results.row(
    `export job, ${format}`,
    `${jobFigures(e)}; ${base === null ? 'no baseline' : `${fmt((100 * rate) / base, 1)} % of the baseline's rows/s`}`,
    base === null ? undefined : goal(`≥ ${GOAL * 100} % of the baseline's rows/s`, rate >= GOAL * base),
  );
  results.row(`baseline, ${format}`, 'missing' in b ? `absent: ${b.missing}` : baselineFigures(format, b));
  results.point('export-rate', format, {
    job: Math.round(rate),
    ...(base === null ? {} : { baseline: Math.round(base) }),
  });
}

async function main() {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(
    `bench:export, ${fmt(EVENTS)} events, formats ${FORMATS.join(', ')}, at ${new Date().toISOString()}; load average ${load()}`,
  );
  const names = uniqueNames('benchexport');
  const settings: ClickHouseSettings = {
    url: CLICKHOUSE_URL,
    database: names.database,
    user: 'default',
    password: '',
  };
  const baselineDir = `${ROOT}.data/bench-export/${names.id}`;
  const exporterGroup = `exporter-${names.id}`;
  let postgres: Awaited<ReturnType<typeof migratedPostgres>> | undefined;
  let pool: pg.Pool | undefined;
  const services: { stop(): Promise<unknown> }[] = [];
  let cleaned: Promise<void> | undefined;
  // Everything the run made goes, also after a failure or an interrupt.
  const cleanup = () =>
    (cleaned ??= (async () => {
      for (const s of services.reverse()) await s.stop().catch(() => undefined);
      await pool?.end().catch(() => undefined);
      await cleanUp(names, [exporterGroup, names.groupId]).catch((err: unknown) =>
        console.error(`clean-up: ${String(err)}`),
      );
      await postgres?.drop().catch(() => undefined);
      rmSync(exportDir(names), { recursive: true, force: true });
      rmSync(baselineDir, { recursive: true, force: true });
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`${signal}: cleaning up`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  const failures: string[] = [];
  const notes: string[] = [];
  try {
    const dataset = await loadExportDataset(settings, EVENTS, (line) => {
      console.log(line);
      notes.push(line);
    });
    const python = FORMATS.includes('parquet') ? await chdbPython() : { missing: 'not run' };
    if ('missing' in python) console.log(`parquet baseline absent: ${python.missing}`);
    postgres = await migratedPostgres(names);
    const databaseUrl = postgres.url;
    pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // The processes as deployed around a job: the gateway takes it, the projector stores the audit events the
    // exporter waits for, the exporter writes the file (test/support/stack.ts: its own directory, the read-only
    // ClickHouse user, no settle margin since every process shares this host's clock).
    const projector = projectorService(names, { LOG_LEVEL: 'warn' });
    services.push(projector);
    await projector.start();
    const gateway = gatewayService(names, {
      DATABASE_URL: databaseUrl,
      API_KEY_PEPPER: PEPPER,
      CURSOR_SECRET,
      LOG_LEVEL: 'warn',
    });
    services.push(gateway);
    await gateway.start();
    const exporter = exporterService(names, databaseUrl, {
      EXPORT_STORAGE: 'filesystem',
      EXPORT_JOB_PROGRESS_MS: String(PROGRESS_MS),
      LOG_LEVEL: 'warn',
    });
    services.push(exporter);
    await exporter.start();
    const key = await mintKey({
      databaseUrl,
      topicPrefix: names.topicPrefix,
      pepper: PEPPER,
      tenant: EXPORT_TENANT,
      scopes: 'audit:export',
    });
    mkdirSync(baselineDir, { recursive: true });
    const stack: Stack = {
      gatewayUrl: gateway.url,
      key,
      pool,
      exporterPid: exporter.pid!,
      dir: exportDir(names),
      window: {
        database: names.database,
        tenant: EXPORT_TENANT,
        since: dataset.startMs,
        until: dataset.endMs,
      },
    };
    console.log(
      `exporter pid ${exporter.pid}; window ${new Date(dataset.startMs).toISOString()} to ${new Date(dataset.endMs).toISOString()}`,
    );
    for (const format of FORMATS) {
      console.log(`\n${format}: export job …`);
      const e = await exportJob(stack, format);
      const wrong = check(`exporter ${format} file`, e.file, {
        rows: EVENTS,
        firstId: e.manifest.first?.eventId,
        lastId: e.manifest.last?.eventId,
      });
      if (e.rows !== EVENTS) wrong.push(`exporter ${format}: manifest row_count ${e.rows}, loaded ${EVENTS}`);
      rmSync(e.path, { force: true });
      console.log(`${format}: baseline …`);
      const out = join(baselineDir, `baseline.${format === 'parquet' ? 'parquet' : `${format}.gz`}`);
      const b = await baseline(format, { ...stack.window, acceptedAt: e.acceptedAt }, out, python);
      if (!('missing' in b)) {
        wrong.push(
          ...check(`baseline ${format} file`, b.file, {
            rows: EVENTS,
            firstId: e.manifest.first?.eventId,
            lastId: e.manifest.last?.eventId,
          }),
        );
      }
      rmSync(out, { force: true });
      recordFormat(format, e, b);
      for (const w of wrong) console.error(`MISMATCH  ${w}`);
      failures.push(...wrong);
    }
    if (PIECES) {
      console.log('\npieces …');
      const reader = { ...settings, user: READER_USER };
      const job = {
        jobId: randomUUID(),
        tenantId: EXPORT_TENANT,
        format: 'ndjson' as const,
        filters: {},
        since: dataset.startMs,
        until: dataset.endMs,
        acceptedAt: Date.now(),
        requestedBy: 'bench',
      };
      await measurePieces(reader, job, PIECE_ROWS, results.row);
    }
  } catch (err) {
    failures.push(String(err));
    console.error(err);
  } finally {
    await cleanup();
  }
  // A failed run's figures are not a result: the last saved one stays.
  if (failures.length > 0) {
    console.error(`\nFAILED: ${failures.join('; ')}; results not saved`);
    process.exitCode = 1;
    return;
  }
  results.save([
    ...notes,
    `Baselines: ClickHouse writes the same rows in the same format itself, in one query over HTTP, external sort past ${fmt(EXTERNAL_SORT_BYTES / 1e9)} GB, piped through Node's gzip at level 6 for NDJSON and CSV, chdb from RowBinary for Parquet.`,
  ]);
}

await main();
