import { CSV_COLUMNS } from './csv-format.js';

/** A Parquet column's type: text (UTF-8), a UTC instant in milliseconds, or a flag. */
export type ColumnType = 'utf8' | 'timestamp' | 'bool';

/** The Parquet file's columns (docs/exports.md "Files"): the CSV file's, in its order, typed. */
export const PARQUET_COLUMNS: readonly { name: (typeof CSV_COLUMNS)[number]; type: ColumnType }[] =
  CSV_COLUMNS.map((name) => ({
    name,
    type:
      name === 'timestamp'
        ? 'timestamp'
        : name === 'phi_involved' || name === 'success' || name === 'disclosure'
          ? 'bool'
          : 'utf8',
  }));

/** Rows per row group: what the encoding thread holds of the file at once, besides the footer it builds. */
export const ROW_GROUP_ROWS = 10_000;

/** A text column as Arrow lays it out: every value's UTF-8 bytes one after another, and where each begins. */
export interface TextColumn {
  /** rows + 1 byte offsets into `data`. */
  offsets: Int32Array;
  data: Uint8Array;
}

/**
 * One row group's columns as Arrow's buffers, in PARQUET_COLUMNS' order: text as offsets and bytes, the
 * timestamp as 64-bit milliseconds, flags as bitmaps (bit i of byte i / 8). No two columns share a buffer, so
 * all of them can be handed to the encoding thread without a copy.
 */
export interface RowGroup {
  rows: number;
  columns: (TextColumn | BigInt64Array | Uint8Array)[];
}

/** The buffers a row group hands over. */
export function transferables(group: RowGroup): ArrayBuffer[] {
  return group.columns.flatMap((c) =>
    'offsets' in c
      ? [c.offsets.buffer as ArrayBuffer, c.data.buffer as ArrayBuffer]
      : [c.buffer as ArrayBuffer],
  );
}

/** A group of no rows: what a file of an empty window holds, so that it still has its columns. */
export function emptyRowGroup(): RowGroup {
  return {
    rows: 0,
    columns: PARQUET_COLUMNS.map(({ type }) =>
      type === 'utf8'
        ? { offsets: new Int32Array(1), data: new Uint8Array(0) }
        : type === 'timestamp'
          ? new BigInt64Array(0)
          : new Uint8Array(0),
    ),
  };
}
