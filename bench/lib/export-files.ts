// Reads back the export benchmark's files: how many rows each holds, and its first and last event ids (the same
// rows in the same order, checked at both ends).
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';

export interface FileRows {
  rows: number;
  firstId: string | null;
  lastId: string | null;
}

const LF = 0x0a;

/**
 * The records of a gzip NDJSON or CSV file: its lines (LF or CRLF), less a header line when `header`. Counts
 * line ends, so it holds for files whose fields hold no line breaks, as the benchmark's events do not.
 */
export async function gzipTextRows(
  path: string,
  header: boolean,
  idOf: (line: string) => string,
): Promise<FileRows> {
  let lines = 0;
  let head = '';
  let tail = Buffer.alloc(0);
  for await (const chunk of createReadStream(path).pipe(
    createGunzip({ chunkSize: 1 << 20 }),
  ) as AsyncIterable<Buffer>) {
    let at = chunk.indexOf(LF);
    while (at !== -1) {
      lines++;
      at = chunk.indexOf(LF, at + 1);
    }
    if (head.length < 4096) head += chunk.subarray(0, 4096).toString('utf8');
    // Enough of the end to hold the last line whole.
    tail = Buffer.concat([tail, chunk]).subarray(-8192);
  }
  const headLines = head.split('\n');
  const tailLines = tail.toString('utf8').trimEnd().split('\n');
  const rows = lines - (header ? 1 : 0);
  if (rows <= 0) return { rows: Math.max(rows, 0), firstId: null, lastId: null };
  return {
    rows,
    firstId: idOf(headLines[header ? 1 : 0]!.replace(/\r$/, '')),
    lastId: idOf(tailLines.at(-1)!.replace(/\r$/, '')),
  };
}

/** A JSON line's event_id. */
export const jsonId = (line: string) => (JSON.parse(line) as { event_id: string }).event_id;

/** A CSV record's first field, the event id (never quoted: a UUID holds nothing CSV quotes). */
export const csvId = (line: string) => line.slice(0, line.indexOf(',')).replace(/^"|"$/g, '');

/** A Parquet file's rows from its footer, and its first and last event ids. */
export async function parquetRows(path: string): Promise<FileRows> {
  const file = await asyncBufferFromFile(path);
  const rows = Number((await parquetMetadataAsync(file)).num_rows);
  if (rows === 0) return { rows, firstId: null, lastId: null };
  const id = async (row: number) =>
    String(
      (await parquetReadObjects({ file, columns: ['event_id'], rowStart: row, rowEnd: row + 1 }))[0]!
        .event_id,
    );
  return { rows, firstId: await id(0), lastId: await id(rows - 1) };
}
