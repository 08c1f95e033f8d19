import { createHash } from 'node:crypto';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setImmediate } from 'node:timers/promises';
import { createGzip } from 'node:zlib';
import { toAuditEventView, type AuditEventView, type EventRow } from '@audit/shared/contract';
import { type ExportJobFormat, type ExportManifest } from '@audit/shared/export-jobs';
import { CSV_HEADER, csvRecord } from '../domain/csv-format.js';
import { RowBinaryDecoder, rowGroups, type RowEnds } from '../domain/row-binary.decoder.js';
import { ROW_GROUP_ROWS } from '../domain/row-group.js';
import { parquetFile } from './parquet.writer.js';

/** Where a file being written is: rows rendered, and bytes (compressed, as stored) written. */
export interface WriteProgress {
  rowsWritten: number;
  bytesWritten: number;
}

// Rendered rows go to gzip in pieces of about this size: a write per row costs more than rendering the row.
const PIECE = 256 * 1024;

/** The text of a gzip file's rows: one JSON event per line, or CSV with its header (docs/exports.md "Files"). */
async function* text(
  format: Exclude<ExportJobFormat, 'parquet'>,
  batches: AsyncIterable<EventRow[]>,
  progress: WriteProgress,
) {
  const render = format === 'csv' ? csvRecord : (event: AuditEventView) => `${JSON.stringify(event)}\n`;
  let piece = format === 'csv' ? CSV_HEADER : '';
  for await (const rows of batches) {
    for (const row of rows) {
      piece += render(toAuditEventView(row));
      if (piece.length >= PIECE) {
        yield piece;
        piece = '';
        await setImmediate();
      }
    }
    progress.rowsWritten += rows.length;
  }
  if (piece) yield piece;
}

/** A window's rows as each kind of file reads them: parsed for the text files, RowBinary bytes for Parquet. */
export interface WindowSource {
  rows(): AsyncIterable<EventRow[]>;
  rowBinary(): AsyncIterable<Uint8Array>;
}

/** The batches as they are, noting the first and last row's time and id on the way. */
async function* tracked(batches: AsyncIterable<EventRow[]>, ends: RowEnds) {
  for await (const rows of batches) {
    const end = rows.at(-1);
    if (!end) continue;
    ends.first ??= { ts: Number(rows[0]!.ts), eventId: rows[0]!.event_id };
    ends.last = { ts: Number(end.ts), eventId: end.event_id };
    yield rows;
  }
}

/**
 * Writes the window's rows, in the order read, as the format's file to `out` (docs/exports.md "Files"), and
 * returns its manifest: the SHA-256 and size are of the bytes stored. `progress` is updated as the file grows.
 */
export async function writeFile(
  format: ExportJobFormat,
  source: WindowSource,
  out: Writable,
  progress: WriteProgress,
): Promise<ExportManifest> {
  const hash = createHash('sha256');
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      progress.bytesWritten += chunk.length;
      done(null, chunk);
    },
  });
  let ends: RowEnds = { first: null, last: null };
  if (format === 'parquet') {
    const decoder = new RowBinaryDecoder(ROW_GROUP_ROWS);
    const groups = rowGroups(source.rowBinary(), decoder);
    await pipeline(
      Readable.from(parquetFile(groups, (rows) => (progress.rowsWritten += rows))),
      measure,
      out,
    );
    ends = decoder.ends;
  } else {
    await pipeline(
      Readable.from(text(format, tracked(source.rows(), ends), progress)),
      createGzip({ chunkSize: 64 * 1024 }),
      measure,
      out,
    );
  }
  return {
    rowCount: progress.rowsWritten,
    byteSize: progress.bytesWritten,
    sha256: hash.digest('hex'),
    ...ends,
  };
}
