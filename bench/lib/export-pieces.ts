// Where an export job's time goes (BENCH_EXPORT_PIECES=1): the exporter's own code run in this process, one
// piece at a time, each timed with the CPU it costs here and in ClickHouse. The whole window for the reads; a
// sample of its rows, held in memory and cycled, for the pieces that need no ClickHouse.
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { toAuditEventView, type EventRow } from '@audit/shared/contract';
import { type ExportJobFormat, type ExportJobRequest } from '@audit/shared/export-jobs';
import { createClickHouse, type ClickHouseSettings } from '@audit/shared/platform';
import { projectionTables } from '@audit/shared/projection';
import { writeFile } from '../../services/exporter/src/adapters/file.writer.js';
import { parquetFile } from '../../services/exporter/src/adapters/parquet.writer.js';
import { windowReader, windowReads } from '../../services/exporter/src/adapters/window.reader.js';
import { RowBinaryDecoder, rowGroups } from '../../services/exporter/src/domain/row-binary.decoder.js';
import { readTurns } from '../../services/exporter/src/domain/read-turns.js';
import { ROW_GROUP_ROWS } from '../../services/exporter/src/domain/row-group.js';
import { rowBinaryOf } from '../../services/exporter/src/test-support/row-binary.js';
import { countWindow, planChunks } from '../../services/exporter/src/domain/chunk-plan.js';
import { CSV_HEADER, csvRecord } from '../../services/exporter/src/domain/csv-format.js';
import { commandCpuSeconds } from './command-cpu.js';
import { windowQuery } from './export-baseline.js';
import type { BenchResults } from './results.js';
import { fmt } from './stats.js';

/** The exporter's default (EXPORT_JOB_CHUNK_ROWS). */
const CHUNK_ROWS = 50_000;
const SAMPLE_ROWS = 100_000;
// About what one answer's piece of JSONEachRow holds (the client parses rows as the bytes arrive).
const BATCH_ROWS = 64;

interface Timed {
  rows: number;
  seconds: number;
  cpu: number;
  clickhouseCpu: number;
  heapGrowth?: number;
}

async function timed(rows: () => Promise<number>): Promise<Timed> {
  const cpu0 = process.cpuUsage();
  const ch0 = commandCpuSeconds('clickhouse-serv');
  const started = performance.now();
  const n = await rows();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    rows: n,
    seconds,
    cpu: (cpu.user + cpu.system) / 1e6,
    clickhouseCpu: commandCpuSeconds('clickhouse-serv') - ch0,
  };
}

const figures = (t: Timed) =>
  `${fmt(t.rows / t.seconds)} rows/s, ${fmt((1e6 * t.cpu) / t.rows, 2)} µs CPU/row here, ${fmt((1e6 * t.clickhouseCpu) / t.rows, 2)} µs in ClickHouse${t.heapGrowth === undefined ? '' : `; heap after GC ${fmt(t.heapGrowth / 2 ** 20, 1)} MiB above the start`}`;

/** Takes every item of `items`; returns how many there were. */
async function drain(items: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const item of items) if (item !== undefined) n++;
  return n;
}

/** `rows` rows cycled from the sample. */
function* cycled(sample: readonly EventRow[], rows: number): Generator<EventRow> {
  for (let i = 0; i < rows; i++) yield sample[i % sample.length]!;
}

/** The same rows as RowBinary, in the pieces a read delivers. */
async function* cycledBinary(sample: readonly EventRow[], rows: number): AsyncGenerator<Uint8Array> {
  const whole = rowBinaryOf(sample);
  const pieces = (bytes: Uint8Array) =>
    Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, i) =>
      bytes.subarray(i * 65_536, (i + 1) * 65_536),
    );
  for (let left = rows; left > 0; left -= sample.length) {
    yield* pieces(left >= sample.length ? whole : rowBinaryOf(sample.slice(0, left)));
  }
}

/** The same rows in batches, as the window's reads deliver them. */
async function* cycledBatches(sample: readonly EventRow[], rows: number): AsyncGenerator<EventRow[]> {
  let batch: EventRow[] = [];
  for (const row of cycled(sample, rows)) {
    batch.push(row);
    if (batch.length === BATCH_ROWS) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

// A sink that takes every byte and keeps none.
const nowhere = () => new Writable({ write: (_chunk, _encoding, done) => done() });

/**
 * The pieces of a job of `job`'s window, reading as the exporter does (its reader, user and chunk plan), and
 * writing `rows` rows of a sample through each format's writer.
 */
export async function measurePieces(
  settings: ClickHouseSettings,
  job: ExportJobRequest,
  rows: number,
  row: BenchResults['row'],
) {
  const ch = createClickHouse(settings, settings.database, 300_000);
  const gc = (globalThis as { gc?: () => void }).gc;
  try {
    const reader = windowReader(ch, { ...projectionTables(1), indexed: false }, job);
    // The job alone at its exporter: its reads never wait for a turn.
    const turns = readTurns(2);
    const take = () => turns.take(job.tenantId);
    const window = { database: settings.database, tenant: job.tenantId, acceptedAt: job.acceptedAt };
    let chunks: ReturnType<typeof planChunks> = [];
    const planned = await timed(async () => {
      const buckets = await countWindow(reader.count, job.since, job.until, CHUNK_ROWS);
      chunks = planChunks(buckets, job.since, job.until, CHUNK_ROWS);
      return chunks.reduce((n, c) => n + c.rows, 0);
    });
    row(
      'piece, count and plan',
      `${chunks.length} chunks of up to ${fmt(CHUNK_ROWS)} rows in ${fmt(planned.seconds, 1)} s`,
    );
    // The chunks' answers as bytes only: what ClickHouse and the transfer cost, nothing parsed.
    const bytes = await timed(async () => {
      let n = 0;
      for (const c of chunks) {
        const chunk = { since: Math.max(c.from, job.since), until: Math.min(c.to, job.until) };
        const raw = await ch.exec({
          query: windowQuery({ ...window, ...chunk }, 'JSONEachRow'),
        });
        await drain(raw.stream);
        n += c.rows;
      }
      return n;
    });
    row('piece, read: the chunks as JSONEachRow bytes, not parsed', figures(bytes));
    const parsed = await timed(async () => {
      let n = 0;
      for await (const batch of windowReads(reader.rows, chunks, take)) n += batch.length;
      return n;
    });
    row("piece, read: the exporter's reader, rows parsed, next chunk read ahead", figures(parsed));
    const grouped = await timed(async () => {
      let n = 0;
      const groups = rowGroups(
        windowReads(reader.rowBinary, chunks, take),
        new RowBinaryDecoder(ROW_GROUP_ROWS),
      );
      for await (const group of groups) n += group.rows;
      return n;
    });
    row("piece, read: the exporter's RowBinary read, laid out in row groups", figures(grouped));

    const sample: EventRow[] = [];
    for await (const batch of windowReads(reader.rows, chunks, take)) {
      sample.push(...batch.slice(0, SAMPLE_ROWS - sample.length));
      if (sample.length >= SAMPLE_ROWS) break;
    }
    const text = (format: 'ndjson' | 'csv') =>
      timed(async () => {
        let n = 0;
        let piece = format === 'csv' ? CSV_HEADER : '';
        for (const row of cycled(sample, rows)) {
          const event = toAuditEventView(row);
          piece += format === 'csv' ? csvRecord(event) : `${JSON.stringify(event)}\n`;
          if (piece.length >= 65_536) piece = '';
          n++;
        }
        return n;
      });
    row('piece, format: NDJSON lines (toAuditEventView, JSON.stringify)', figures(await text('ndjson')));
    row('piece, format: CSV records (toAuditEventView, csvRecord)', figures(await text('csv')));
    // Gzip alone, of NDJSON text rendered beforehand (64 KiB pieces, as the writer sends them).
    const pieces: string[] = [];
    let piece = '';
    for (const row of sample) {
      piece += `${JSON.stringify(toAuditEventView(row))}\n`;
      if (piece.length >= 65_536) {
        pieces.push(piece);
        piece = '';
      }
    }
    const perPiece = sample.length / pieces.length;
    const gz = await timed(async () => {
      const count = Math.ceil(rows / perPiece);
      await pipeline(
        Readable.from(
          (function* () {
            for (let i = 0; i < count; i++) yield pieces[i % pieces.length]!;
          })(),
        ),
        createGzip(),
        nowhere(),
      );
      return Math.round(count * perPiece);
    });
    row('piece, gzip: NDJSON text, level 6 (zlib, in its thread)', figures(gz));
    // With --expose-gc: the heap after a collection at 10, 50 and 100 % of the rows (what the writer keeps).
    const kept: string[] = [];
    const checkpoints = [0.1, 0.5, 1].map((share) => Math.round(share * rows));
    const pq = await timed(async () => {
      let n = 0;
      gc?.();
      const heap0 = process.memoryUsage().heapUsed;
      await drain(
        parquetFile(rowGroups(cycledBinary(sample, rows), new RowBinaryDecoder(ROW_GROUP_ROWS)), (r) => {
          n += r;
          if (gc && checkpoints.includes(n)) {
            gc();
            kept.push(`${fmt((process.memoryUsage().heapUsed - heap0) / 2 ** 20, 1)} MiB at ${fmt(n)} rows`);
          }
        }),
      );
      return n;
    });
    row('piece, parquet: parquetFile (parquet-wasm in its thread), no file', figures(pq));
    if (kept.length > 0) row('piece, parquet: heap after a collection, above the start', kept.join(', '));
    for (const format of ['ndjson', 'csv', 'parquet'] as ExportJobFormat[]) {
      gc?.();
      const heap0 = process.memoryUsage().heapUsed;
      const t = await timed(async () => {
        const progress = { rowsWritten: 0, bytesWritten: 0 };
        const source = {
          rows: () => cycledBatches(sample, rows),
          rowBinary: () => cycledBinary(sample, rows),
        };
        await writeFile(format, source, nowhere(), progress);
        return progress.rowsWritten;
      });
      gc?.();
      row(
        `piece, write: the exporter's writeFile, ${format}, no ClickHouse`,
        figures({ ...t, ...(gc ? { heapGrowth: process.memoryUsage().heapUsed - heap0 } : {}) }),
      );
    }
  } finally {
    await ch.close();
  }
}
