import { ByteWriter, ParquetWriter, type SchemaElement } from 'hyparquet-writer';
import type { EventRow } from '@audit/shared';
import { CSV_COLUMNS } from '../domain/csv-format.js';

// Rows per row group: the writer holds one group's columns and its encoded bytes (measured: about 270 MB RSS
// at 10,000 rows of 1 KiB, twice that at 50,000, and the fastest of the sizes tried).
const ROW_GROUP_ROWS = 10_000;

const text = { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } } as const;

/**
 * The Parquet file's columns (docs/exports.md "Files"): the CSV file's, in its order, typed. Every column is
 * required; `timestamp` is INT64 milliseconds with the TIMESTAMP(MILLIS, UTC) logical type, so that readers see a
 * UTC instant; the flags are BOOLEAN; `fields_accessed` and `details` are their JSON text, as everywhere.
 */
const COLUMN_TYPES: Record<(typeof CSV_COLUMNS)[number], Omit<SchemaElement, 'name'>> = {
  event_id: text,
  timestamp: {
    type: 'INT64',
    converted_type: 'TIMESTAMP_MILLIS',
    logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
  },
  tenant_id: text,
  action: text,
  user_id: text,
  user_role: text,
  resource_type: text,
  resource_id: text,
  fields_accessed: text,
  phi_involved: { type: 'BOOLEAN' },
  source_ip: text,
  user_agent: text,
  justification: text,
  success: { type: 'BOOLEAN' },
  details: text,
};

export const PARQUET_SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: CSV_COLUMNS.length },
  ...CSV_COLUMNS.map((name) => ({ name, repetition_type: 'REQUIRED' as const, ...COLUMN_TYPES[name] })),
];

/** A column's value of a stored row. */
function value(row: EventRow, column: (typeof CSV_COLUMNS)[number]): string | number | boolean {
  switch (column) {
    case 'timestamp':
      return Number(row.ts);
    case 'phi_involved':
      return row.phi_involved === 1;
    case 'success':
      return row.success === 1;
    default:
      return row[column];
  }
}

/** Keeps each encoded row group's bytes until they are taken: the file's bytes, a row group at a time. */
class ChunkWriter extends ByteWriter {
  private chunks: Buffer[] = [];

  constructor() {
    super(1 << 20);
  }

  flush(): void {
    if (this.index === 0) return;
    // A copy: the writer reuses its buffer for the next row group.
    this.chunks.push(Buffer.from(this.buffer.slice(0, this.index)));
    this.index = 0;
  }

  override finish(): void {
    this.flush();
  }

  take(): Buffer[] {
    const taken = this.chunks;
    this.chunks = [];
    return taken;
  }
}

/**
 * The rows, in the order given, as one Parquet file's bytes (SNAPPY pages, the codec every reader has), a row
 * group at a time: the caller's stream pulls them, so a slow or failed destination stops the writing.
 * `written` is called with the rows of each group as it is encoded.
 */
export async function* parquetFile(
  rows: AsyncIterable<EventRow>,
  written: (rows: number) => void,
): AsyncGenerator<Buffer> {
  const writer = new ChunkWriter();
  const parquet = new ParquetWriter({ writer, schema: PARQUET_SCHEMA, codec: 'SNAPPY' });
  let columns = CSV_COLUMNS.map(() => [] as (string | number | boolean)[]);
  const group = async () => {
    const count = columns[0]!.length;
    if (count === 0) return;
    const columnData = CSV_COLUMNS.map((name, i) => ({ name, data: columns[i]! }));
    columns = CSV_COLUMNS.map(() => []);
    await parquet.write({ columnData, rowGroupSize: count });
    written(count);
  };
  for await (const row of rows) {
    CSV_COLUMNS.forEach((column, i) => columns[i]!.push(value(row, column)));
    if (columns[0]!.length >= ROW_GROUP_ROWS) {
      await group();
      yield* writer.take();
    }
  }
  await group();
  await parquet.finish();
  yield* writer.take();
}
