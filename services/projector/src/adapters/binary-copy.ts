// Rows in COPY's binary format (the PostgreSQL manual, "COPY", "Binary Format"): a header, then per row its field
// count and each field as its byte length and bytes (big-endian numbers), then a trailer. Postgres reads it without
// parsing text: measured, half of what the text format of the same key rows cost it without their index, and 0.4-0.8
// µs a row less with it (docs/benchmarks/journal.md "Results (2026-11-28, 08:20-09:00)").

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER_BYTES = SIGNATURE.length + 8;

/** One COPY's rows, written into one buffer of the size they were declared to need. */
export class BinaryRows {
  private readonly out: Buffer;
  private at = HEADER_BYTES;

  /** `bytes`: what the rows' fields take, with each row's 2 bytes and each field's 4 of length. */
  constructor(bytes: number) {
    this.out = Buffer.allocUnsafe(HEADER_BYTES + bytes + 2);
    SIGNATURE.copy(this.out);
    this.out.writeUInt32BE(0, SIGNATURE.length);
    this.out.writeUInt32BE(0, SIGNATURE.length + 4);
  }

  row(fields: number): this {
    this.at = this.out.writeInt16BE(fields, this.at);
    return this;
  }

  /** A bigint column from a number from 0 to 2^53: two 32-bit halves, no BigInt made. */
  int8(value: number): this {
    this.at = this.out.writeInt32BE(8, this.at);
    this.at = this.out.writeUInt32BE(Math.floor(value / 2 ** 32), this.at);
    this.at = this.out.writeUInt32BE(value % 2 ** 32, this.at);
    return this;
  }

  /** A bytea or uuid column: `length` bytes of `from` from `start`. */
  bytes(from: Uint8Array, start = 0, length = from.length - start): this {
    this.at = this.out.writeInt32BE(length, this.at);
    this.out.set(from.subarray(start, start + length), this.at);
    this.at += length;
    return this;
  }

  /** The rows and the trailer. */
  end(): Buffer {
    this.at = this.out.writeInt16BE(-1, this.at);
    if (this.at !== this.out.length)
      throw new RangeError(`rows took ${this.at} bytes, declared ${this.out.length}`);
    return this.out;
  }
}
