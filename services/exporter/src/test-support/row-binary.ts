import { EVENT_COLUMNS, type EventRow } from '@audit/shared/contract';

const COLUMNS = EVENT_COLUMNS.split(', ') as (keyof EventRow)[];
const INTEGER = new Set(['ts']);
const FLAG = new Set(['phi_involved', 'success', 'disclosure']);

function leb128(value: number): number[] {
  const bytes: number[] = [];
  do {
    const low = value % 128;
    value = Math.floor(value / 128);
    bytes.push(value > 0 ? low | 0x80 : low);
  } while (value > 0);
  return bytes;
}

/** Rows as ClickHouse sends EVENT_COLUMNS in RowBinary: what the exporter's Parquet path reads. */
export function rowBinaryOf(rows: readonly EventRow[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const row of rows) {
    for (const column of COLUMNS) {
      if (INTEGER.has(column)) {
        const ts = new Uint8Array(8);
        new DataView(ts.buffer).setBigInt64(0, BigInt(row[column]), true);
        parts.push(ts);
      } else if (FLAG.has(column)) {
        parts.push(Uint8Array.of(Number(row[column])));
      } else {
        const text = new TextEncoder().encode(String(row[column]));
        parts.push(Uint8Array.from(leb128(text.length)), text);
      }
    }
  }
  return Buffer.concat(parts);
}
