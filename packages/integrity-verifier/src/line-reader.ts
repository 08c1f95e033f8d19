import { Buffer } from 'node:buffer';
import { open } from 'node:fs/promises';

const LF = 0x0a;

/**
 * An input's bytes in blocks of whole lines, of about `least` bytes: a block ends just after the last line feed
 * of the chunk that brought it to `least` bytes, or where the input ends. A character is never split between two
 * blocks, since no byte of a UTF-8 character but the line feed itself is 0x0A. Each block's ArrayBuffer is its own
 * (it may be longer than the block), so that it can be moved to a worker thread rather than copied.
 */
export async function* lineBlocks(
  chunks: AsyncIterable<Uint8Array>,
  least = 1 << 20,
): AsyncGenerator<Buffer> {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  for await (const chunk of chunks) {
    held.push(chunk);
    heldBytes += chunk.length;
    const last = heldBytes < least ? -1 : chunk.lastIndexOf(LF);
    if (last === -1) continue;
    const all = joined(held, heldBytes);
    const cut = heldBytes - chunk.length + last + 1;
    // The rest is copied out, so that the block holds its memory alone.
    held = [Buffer.from(all.subarray(cut))];
    heldBytes = all.length - cut;
    yield all.subarray(0, cut);
  }
  if (heldBytes > 0) yield joined(held, heldBytes);
}

/**
 * A file's bytes in blocks of whole lines, as lineBlocks gives a stream's of `size`-byte chunks, read straight into
 * buffers of their own, each at least `size` bytes: `spare` ones (of blocks whoever took them is done with) where
 * there are, new ones else. Reading into a buffer used before neither copies the bytes once more nor faults in new
 * memory, both of which a large export paid for each block (docs/benchmarks/journal.md "bench:integrity").
 */
export async function* fileBlocks(path: string, size: number, spare: ArrayBuffer[]): AsyncGenerator<Buffer> {
  const take = (least: number): Buffer => {
    const b = spare.at(-1);
    if (b && b.byteLength >= least) return Buffer.from(spare.pop()!);
    return Buffer.allocUnsafeSlow(Math.max(size, least));
  };
  const file = await open(path);
  try {
    let buf = take(size);
    // The bytes at buf's start, of a line the last block left out, or read since.
    let held = 0;
    for (;;) {
      while (held < buf.length) {
        const { bytesRead } = await file.read(buf, held, buf.length - held, null);
        if (bytesRead === 0) {
          if (held > 0) yield buf.subarray(0, held);
          return;
        }
        held += bytesRead;
      }
      const cut = buf.lastIndexOf(LF) + 1;
      // A line longer than the buffer: read on into one twice its size.
      const next = take(cut === 0 ? 2 * buf.length : 2 * (buf.length - cut));
      buf.copy(next, 0, cut);
      held = buf.length - cut;
      const block = buf.subarray(0, cut);
      buf = next;
      if (cut > 0) yield block;
    }
  } finally {
    await file.close();
  }
}

/** The chunks in one buffer of their own: Buffer.concat would put a small one in Node's shared pool. */
function joined(chunks: Uint8Array[], length: number): Buffer {
  const out = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * Calls `each` with every line of a block (lineBlocks) that is not blank, as readline gives them: a line ends at
 * `\n`, `\r\n` or a lone `\r`. Read by hand: readline costs more per line than the rest of a line's check but
 * JSON.parse (docs/benchmarks/journal.md "bench:integrity").
 */
export function eachLine(block: Uint8Array, each: (line: string) => void): void {
  const bytes = asBuffer(block);
  eachLineFeed(bytes, (start, end) => eachLineOf(bytes.toString('utf8', start, end), each));
}

export const asBuffer = (block: Uint8Array): Buffer =>
  Buffer.isBuffer(block) ? block : Buffer.from(block.buffer, block.byteOffset, block.length);

/** Calls `each` with where each of the bytes' lines begins and ends, cut at line feeds only (left out). */
export function eachLineFeed(bytes: Buffer, each: (start: number, end: number) => void): void {
  for (let start = 0; start < bytes.length;) {
    let end = bytes.indexOf(LF, start);
    if (end === -1) end = bytes.length;
    each(start, end);
    start = end + 1;
  }
}

/** Calls `each` with the lines of the text of one line of eachLineFeed's that are not blank. */
export function eachLineOf(line: string, each: (line: string) => void): void {
  // A carriage return ends a line too; the empty line `\r\n` leaves is blank, and skipped.
  if (line.includes('\r')) {
    for (const part of line.split('\r')) if (part.trim() !== '') each(part);
  } else if (line.trim() !== '') each(line);
}
