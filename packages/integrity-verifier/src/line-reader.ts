import { Buffer } from 'node:buffer';

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
 * JSON.parse (docs/benchmarks.md "bench:integrity").
 */
export function eachLine(block: Uint8Array, each: (line: string) => void): void {
  const bytes = Buffer.isBuffer(block) ? block : Buffer.from(block.buffer, block.byteOffset, block.length);
  for (let start = 0; start < bytes.length;) {
    let end = bytes.indexOf(LF, start);
    if (end === -1) end = bytes.length;
    const line = bytes.toString('utf8', start, end);
    start = end + 1;
    // A carriage return ends a line too; the empty line `\r\n` leaves is blank, and skipped.
    if (line.includes('\r')) {
      for (const part of line.split('\r')) if (part.trim() !== '') each(part);
    } else if (line.trim() !== '') each(line);
  }
}
