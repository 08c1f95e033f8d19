// The Parquet encoder's thread (parquet.writer.ts): row groups in, the file's bytes out. It imports nothing of
// the project and uses only syntax Node strips itself, so it starts the same under tsx, vitest and the build.
import { parentPort, workerData } from 'node:worker_threads';
import {
  Bool,
  Field,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampMillisecond,
  Utf8,
  tableToIPC,
} from 'apache-arrow';
import * as parquet from 'parquet-wasm';

/** What the writer gives the thread (parquet.writer.ts): the columns, and how row groups are cut and encoded. */
export interface EncoderSettings {
  columns: { name: string; type: 'utf8' | 'timestamp' | 'bool' }[];
  rowGroupRows: number;
  /** Columns with few distinct values, dictionary-encoded: the rest are not worth the time. */
  dictionaryColumns: string[];
}

/** A row group as parquet.writer.ts sends it (domain/row-group.ts). */
interface Group {
  rows: number;
  columns: ({ offsets: Int32Array; data: Uint8Array } | BigInt64Array | Uint8Array)[];
}

/** What the thread answers: a piece of the file, a row group taken (room for another), or the file's end. */
export type EncoderMessage = { bytes: Uint8Array } | { taken: number } | { done: true };

const settings = workerData as EncoderSettings;
const port = parentPort!;
const typeOf = (type: EncoderSettings['columns'][number]['type']) =>
  type === 'utf8' ? new Utf8() : type === 'bool' ? new Bool() : new TimestampMillisecond('UTC');
// Every column REQUIRED (not nullable); the timestamp a UTC instant in milliseconds.
const schema = new Schema(settings.columns.map((c) => new Field(c.name, typeOf(c.type), false)));

/** A row group as one Arrow record batch over the buffers received (no copy), as Arrow IPC bytes. */
function arrowBatch(group: Group): Uint8Array {
  const children = group.columns.map((column, i) => {
    const type = schema.fields[i]!.type;
    if ('offsets' in column) {
      return makeData({
        type,
        length: group.rows,
        nullCount: 0,
        valueOffsets: column.offsets,
        data: column.data,
      });
    }
    return makeData({ type, length: group.rows, nullCount: 0, data: column });
  });
  const struct = makeData({ type: new Struct(schema.fields), length: group.rows, nullCount: 0, children });
  return tableToIPC(new Table([new RecordBatch(schema, struct)]), 'stream');
}

let properties = new parquet.WriterPropertiesBuilder()
  .setCompression(parquet.Compression.SNAPPY)
  .setMaxRowGroupSize(settings.rowGroupRows)
  .setDictionaryEnabled(false);
for (const name of settings.dictionaryColumns) properties = properties.setColumnDictionaryEnabled(name, true);

const waiting: (Group | null)[] = [];
let arrived: (() => void) | null = null;
port.on('message', (group: Group | null) => {
  waiting.push(group);
  arrived?.();
  arrived = null;
});

// The encoder pulls a row group when it wants one: the writer sends another only when told one was taken.
const batches = new ReadableStream(
  {
    async pull(controller) {
      while (waiting.length === 0) await new Promise<void>((resolve) => (arrived = resolve));
      const group = waiting.shift()!;
      if (group === null) return controller.close();
      const table = parquet.Table.fromIPCStream(arrowBatch(group));
      controller.enqueue(table.recordBatch(0));
      table.free();
      port.postMessage({ taken: group.rows } satisfies EncoderMessage);
    },
  },
  { highWaterMark: 0 },
);

for await (const bytes of (await parquet.transformParquetStream(
  batches,
  properties.build(),
)) as AsyncIterable<Uint8Array>) {
  port.postMessage({ bytes } satisfies EncoderMessage, [bytes.buffer as ArrayBuffer]);
}
port.postMessage({ done: true } satisfies EncoderMessage);
