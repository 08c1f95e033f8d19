import { createHash } from 'node:crypto';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { toAuditEventView, type EventRow, type ExportJobFormat, type ExportManifest } from '@audit/shared';
import { CSV_HEADER, csvRecord } from '../domain/csv-format.js';
import { parquetFile } from './parquet.writer.js';

/** Where a file being written is: rows rendered, and bytes (compressed, as stored) written. */
export interface WriteProgress {
  rowsWritten: number;
  bytesWritten: number;
}

// Rendered rows go to gzip in pieces of about this size: a write per row costs more than rendering the row.
const PIECE = 64 * 1024;

/** The text of a gzip file's rows: one JSON event per line, or CSV with its header (docs/exports.md "Files"). */
async function* text(
  format: Exclude<ExportJobFormat, 'parquet'>,
  rows: AsyncIterable<EventRow>,
  progress: WriteProgress,
) {
  let piece = format === 'csv' ? CSV_HEADER : '';
  for await (const row of rows) {
    const event = toAuditEventView(row);
    piece += format === 'csv' ? csvRecord(event) : `${JSON.stringify(event)}\n`;
    progress.rowsWritten += 1;
    if (piece.length >= PIECE) {
      yield piece;
      piece = '';
    }
  }
  if (piece) yield piece;
}

/**
 * Writes the rows, in the order given, as the format's file to `out` (docs/exports.md "Files"), and returns its
 * manifest: the SHA-256 and size are of the bytes stored. `progress` is updated as the file grows.
 */
export async function writeFile(
  format: ExportJobFormat,
  rows: AsyncIterable<EventRow>,
  out: Writable,
  progress: WriteProgress,
): Promise<ExportManifest> {
  const hash = createHash('sha256');
  let first: ExportManifest['first'] = null;
  let last: ExportManifest['last'] = null;
  async function* tracked() {
    for await (const row of rows) {
      last = { ts: Number(row.ts), eventId: row.event_id };
      first ??= last;
      yield row;
    }
  }
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      progress.bytesWritten += chunk.length;
      done(null, chunk);
    },
  });
  if (format === 'parquet') {
    await pipeline(
      Readable.from(parquetFile(tracked(), (rows) => (progress.rowsWritten += rows))),
      measure,
      out,
    );
  } else {
    await pipeline(Readable.from(text(format, tracked(), progress)), createGzip(), measure, out);
  }
  return {
    rowCount: progress.rowsWritten,
    byteSize: progress.bytesWritten,
    sha256: hash.digest('hex'),
    first,
    last,
  };
}
