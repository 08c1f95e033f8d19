import { leafSaltsText } from '@audit/shared/contract';
import { PARQUET_COLUMNS, type RowGroup, type TextColumn } from './row-group.js';

/**
 * Reads a window's rows as ClickHouse sends them in RowBinary (the columns of EVENT_COLUMNS, in PARQUET_COLUMNS'
 * order: String as a LEB128 length and its bytes, Int64 as 8 bytes little-endian, UInt8 as one byte) and lays
 * them out as Parquet row groups without ever making a JavaScript string of them: the bytes are copied into
 * each column as they are. The format is the same on every ClickHouse version we support. `leaf_salts` is the one
 * column written otherwise: the salts derived from what is stored of them, as the API gives them.
 */

/** Where a window's rows begin and end: the first and last row's time and id, for the manifest. */
export interface RowEnds {
  first: { ts: number; eventId: string } | null;
  last: { ts: number; eventId: string } | null;
}

/** A text column being filled: its bytes grow as needed, its offsets have room for a whole group. */
class TextBuilder {
  offsets: Int32Array;
  data: Uint8Array;
  length = 0;

  constructor(rows: number, bytes: number) {
    this.offsets = new Int32Array(rows + 1);
    this.data = new Uint8Array(bytes);
  }

  /** The bytes, with room for `bytes` more. */
  room(bytes: number): Uint8Array {
    if (this.length + bytes > this.data.length) {
      const grown = new Uint8Array(Math.max(this.data.length * 2, this.length + bytes));
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    return this.data;
  }

  /** The column of `rows` rows: views of the buffers filled, handed over whole. */
  column(rows: number): TextColumn {
    return { offsets: this.offsets.subarray(0, rows + 1), data: this.data.subarray(0, this.length) };
  }
}

const decoder = new TextDecoder('utf-8', { fatal: false });
const encoder = new TextEncoder();
const TS_COLUMN = PARQUET_COLUMNS.findIndex((c) => c.name === 'timestamp');
const ID_COLUMN = PARQUET_COLUMNS.findIndex((c) => c.name === 'event_id');
const SALTS_COLUMN = PARQUET_COLUMNS.findIndex((c) => c.name === 'leaf_salts');
// The columns' types as small integers, and each value's place in the row being read: the inner loop of a
// million-row export touches no objects.
const UTF8 = 0;
const TIMESTAMP = 1;
const COLUMN_TYPES = Uint8Array.from(PARQUET_COLUMNS, ({ type }) =>
  type === 'utf8' ? UTF8 : type === 'timestamp' ? TIMESTAMP : 2,
);
const starts = new Int32Array(COLUMN_TYPES.length);
const ends = new Int32Array(COLUMN_TYPES.length);

/** Copies bytes [from, to) of `source` to `target` at `at`: by hand when short, natively when longer. */
function copy(source: Buffer, from: number, to: number, target: Uint8Array, at: number) {
  if (to - from < 48) {
    for (let i = from; i < to; i++) target[at++] = source[i]!;
  } else {
    source.copy(target, at, from, to);
  }
}

/** Row by row from byte chunks that cut rows anywhere, into row groups of `groupRows` rows. */
export class RowBinaryDecoder {
  private pending: Buffer = Buffer.alloc(0);
  private rows = 0;
  private texts: (TextBuilder | null)[] = [];
  private fixed: (Uint8Array | null)[] = [];
  readonly ends: RowEnds = { first: null, last: null };

  constructor(private readonly groupRows: number) {
    this.reset();
  }

  /** Takes the next bytes; returns the row groups they completed. */
  push(chunk: Uint8Array): RowGroup[] {
    const given = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const bytes = this.pending.length === 0 ? given : Buffer.concat([this.pending, given]);
    const groups: RowGroup[] = [];
    let at = 0;
    for (;;) {
      const next = this.row(bytes, at);
      if (next < 0) break;
      at = next;
      if (this.rows === this.groupRows) groups.push(this.take());
    }
    // The start of a row not yet whole: kept (copied, since the chunk's buffer may be reused) for the next bytes.
    this.pending = Buffer.from(bytes.subarray(at));
    return groups;
  }

  /** The rows left after the last bytes, as the last (smaller) group; fails if a row was cut short. */
  end(): RowGroup | null {
    if (this.pending.length > 0) {
      throw new Error(`the window's rows ended inside a row (${this.pending.length} bytes left)`);
    }
    return this.rows > 0 ? this.take() : null;
  }

  /** Reads one row at `at`; returns where the next begins, or -1 (reading nothing) if the row is not whole. */
  private row(bytes: Buffer, at: number): number {
    // First every value's place, so that a row is added whole or not at all.
    let p = at;
    for (let c = 0; c < COLUMN_TYPES.length; c++) {
      const type = COLUMN_TYPES[c];
      if (type === UTF8) {
        const length = readLength(bytes, p);
        if (length < 0) return -1;
        starts[c] = lengthEnd;
        p = lengthEnd + length;
      } else {
        starts[c] = p;
        p += type === TIMESTAMP ? 8 : 1;
      }
      ends[c] = p;
      if (p > bytes.length) return -1;
    }
    const r = this.rows;
    for (let c = 0; c < COLUMN_TYPES.length; c++) {
      const text = this.texts[c];
      if (c === SALTS_COLUMN && ends[c]! > starts[c]!) {
        const salts = leafSaltsText(bytes.toString('latin1', starts[c], ends[c]));
        text!.length += encoder.encodeInto(salts, text!.room(salts.length).subarray(text!.length)).written;
        text!.offsets[r + 1] = text!.length;
      } else if (text) {
        copy(bytes, starts[c]!, ends[c]!, text.room(ends[c]! - starts[c]!), text.length);
        text.length += ends[c]! - starts[c]!;
        text.offsets[r + 1] = text.length;
      } else if (COLUMN_TYPES[c] === TIMESTAMP) {
        copy(bytes, starts[c]!, ends[c]!, this.fixed[c]!, r * 8);
      } else if (bytes[starts[c]!] === 1) {
        this.fixed[c]![r >> 3]! |= 1 << (r & 7);
      }
    }
    this.rows += 1;
    return p;
  }

  private take(): RowGroup {
    const rows = this.rows;
    const columns = PARQUET_COLUMNS.map((_, c) => {
      const text = this.texts[c];
      if (text) return text.column(rows);
      const fixed = this.fixed[c]!;
      return c === TS_COLUMN ? new BigInt64Array(fixed.buffer, 0, rows) : fixed.subarray(0, (rows + 7) >> 3);
    });
    const id = (row: number) => {
      const { offsets, data } = this.texts[ID_COLUMN]!;
      return decoder.decode(data.subarray(offsets[row], offsets[row + 1]));
    };
    const ts = (row: number) => Number((columns[TS_COLUMN] as BigInt64Array)[row]);
    this.ends.first ??= { ts: ts(0), eventId: id(0) };
    this.ends.last = { ts: ts(rows - 1), eventId: id(rows - 1) };
    this.reset();
    return { rows, columns };
  }

  private reset() {
    this.rows = 0;
    // Each text column starts with room for what it held in the last group, and a little more: growing a
    // column copies it, and the columns of one window's groups are about the same size.
    this.texts = PARQUET_COLUMNS.map(({ type }, c) =>
      type === 'utf8'
        ? new TextBuilder(this.groupRows, Math.ceil((this.texts[c]?.length ?? this.groupRows * 32) * 1.1))
        : null,
    );
    this.fixed = PARQUET_COLUMNS.map(({ type }) =>
      type === 'timestamp'
        ? new Uint8Array(this.groupRows * 8)
        : type === 'bool'
          ? new Uint8Array((this.groupRows + 7) >> 3)
          : null,
    );
  }
}

// Where the last length read ended: a module variable rather than a pair per value, on the hottest path.
let lengthEnd = 0;

/** A LEB128 length at `at` (setting `lengthEnd`), or -1 when the bytes end before it does. */
function readLength(bytes: Buffer, at: number): number {
  let value = 0;
  let shift = 0;
  for (let p = at; p < bytes.length; p++) {
    const byte = bytes[p]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) {
      lengthEnd = p + 1;
      return value;
    }
    shift += 7;
  }
  return -1;
}

/** The row groups of a window read in RowBinary, chunk after chunk. */
export async function* rowGroups(
  chunks: AsyncIterable<Uint8Array>,
  decoder: RowBinaryDecoder,
): AsyncGenerator<RowGroup> {
  for await (const chunk of chunks) yield* decoder.push(chunk);
  const last = decoder.end();
  if (last) yield last;
}
