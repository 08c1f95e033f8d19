// The export benchmark's baselines: ClickHouse writing the same rows, in the same order and format, to a file
// itself. NDJSON and CSV: one query over the HTTP interface (JSONEachRow, CSVWithNames), its answer piped through
// Node's gzip at the exporter's level (zlib's default, 6) into the file. Parquet, which 18.16 cannot write:
// chdb-parquet.py, the current engine reading the 18.16 server's RowBinary answer to the same query.
import { execFile, spawn } from 'node:child_process';
import { createWriteStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import { EVENT_COLUMNS } from '@audit/shared/contract';
import { type ExportJobFormat } from '@audit/shared/export-jobs';
import { sqlIdentifier, sqlValue } from '@audit/shared/platform';
import { commandCpuSeconds } from './command-cpu.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VENV = `${ROOT}.data/bench-export-venv`;

/**
 * The exporter reads in chunks that ClickHouse sorts in bounded memory; the one query of the baseline sorts the
 * whole window, spilling to disk past this many bytes (the reader's profile allows 4 GB a query).
 */
export const EXTERNAL_SORT_BYTES = 1_000_000_000;

export interface Window {
  database: string;
  tenant: string;
  since: number;
  until: number;
  acceptedAt: number;
}

/** The exporter's read of a whole window (window.reader.ts), as one query: its columns, rows and order. */
export function windowQuery(w: Window, format: string): string {
  return `SELECT ${EVENT_COLUMNS} FROM ${sqlIdentifier(w.database)}.audit_events
    WHERE tenant_id = ${sqlValue(w.tenant)} AND ts >= ${sqlValue(w.since)} AND ts < ${sqlValue(w.until)}
      AND ingested_at <= ${sqlValue(w.acceptedAt)}
    ORDER BY ts DESC, event_id DESC FORMAT ${format}`;
}

/** The HTTP interface's address for a query as the given user, with the external sort's bound. */
function queryUrl(clickhouseUrl: string, user: string, query?: string): string {
  const params = new URLSearchParams({ user, max_bytes_before_external_sort: String(EXTERNAL_SORT_BYTES) });
  if (query !== undefined) params.set('query', query);
  return `${clickhouseUrl}/?${params}`;
}

export interface BaselineRun {
  seconds: number;
  bytes: number;
  /** CPU seconds of the writer (this process's gzip, or chdb) and of the ClickHouse server. */
  writerCpu: number;
  clickhouseCpu: number;
  /** The writer's peak RSS, where known. */
  writerRss: number | null;
}

/** NDJSON or CSV: the server's answer through gzip into `out`. */
export async function clickhouseGzip(
  clickhouseUrl: string,
  user: string,
  w: Window,
  format: Exclude<ExportJobFormat, 'parquet'>,
  out: string,
): Promise<BaselineRun> {
  const cpu0 = process.cpuUsage();
  const ch0 = commandCpuSeconds('clickhouse-serv');
  const started = performance.now();
  const res = await fetch(queryUrl(clickhouseUrl, user), {
    method: 'POST',
    body: windowQuery(w, format === 'ndjson' ? 'JSONEachRow' : 'CSVWithNames'),
  });
  if (!res.ok || !res.body) throw new Error(`baseline ${format}: ClickHouse answered ${res.status}`);
  await pipeline(Readable.fromWeb(res.body), createGzip(), createWriteStream(out));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    seconds,
    bytes: statSync(out).size,
    writerCpu: (cpu.user + cpu.system) / 1e6,
    clickhouseCpu: commandCpuSeconds('clickhouse-serv') - ch0,
    writerRss: null,
  };
}

/**
 * The Python of a virtual environment with chdb (the version test:current-clickhouse pins), made once by
 * scripts/python-venv.sh; or why there is none.
 */
export async function chdbPython(): Promise<{ python: string } | { missing: string }> {
  const given = process.env.BENCH_EXPORT_PYTHON;
  if (given) return { python: given };
  try {
    const { stdout } = await run(
      'bash',
      [
        '-c',
        `source scripts/python-venv.sh && ensure_venv ${VENV} infra/current-clickhouse/requirements.txt >&2 && echo "$VENV_BIN"`,
      ],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
    );
    return { python: `${stdout.trim()}/python` };
  } catch (err) {
    return { missing: `no chdb: ${(err as Error).message.split('\n')[0]}` };
  }
}

/** Parquet: chdb reads the server's RowBinary answer and writes `out`. */
export async function chdbParquet(
  python: string,
  clickhouseUrl: string,
  user: string,
  w: Window,
  out: string,
): Promise<BaselineRun> {
  const ch0 = commandCpuSeconds('clickhouse-serv');
  const child = spawn(
    python,
    [`${ROOT}bench/lib/chdb-parquet.py`, queryUrl(clickhouseUrl, user, windowQuery(w, 'RowBinary')), out],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`baseline parquet: chdb exited with ${code}: ${stderr.slice(-2000)}`);
  // The query's own time, without Python's start and chdb's import.
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    seconds: number;
    cpu_seconds: number;
    max_rss_bytes: number;
  };
  return {
    seconds: result.seconds,
    bytes: statSync(out).size,
    writerCpu: result.cpu_seconds,
    clickhouseCpu: commandCpuSeconds('clickhouse-serv') - ch0,
    writerRss: result.max_rss_bytes,
  };
}
