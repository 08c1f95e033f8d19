import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { createGunzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { eachLine, fileBlocks, lineBlocks } from './line-reader.js';

/** The lines readline gives of the bytes, blank ones left out: what the command read before. */
async function byReadline(bytes: Buffer): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: Readable.from([bytes]), crlfDelay: Infinity }))
    if (line.trim() !== '') lines.push(line);
  return lines;
}

/** The lines the reader gives of the chunks, in blocks of at least `least` bytes. */
async function byBlocks(chunks: Uint8Array[] | AsyncIterable<Uint8Array>, least: number) {
  const lines: string[] = [];
  const blocks: string[] = [];
  for await (const block of lineBlocks(Readable.from(chunks), least)) {
    blocks.push(block.toString('latin1'));
    eachLine(block, (line) => lines.push(line));
  }
  return { lines, blocks };
}

/** The bytes cut into chunks of `size`. */
const chunked = (bytes: Buffer, size: number) =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

const TEXT = [
  '{"a":"é"}',
  '',
  '{"b":"🧾 ü"}\r',
  '   ',
  '\t{"c":1}',
  'x\ry',
  '\r',
  '{"d":"\u00a0"}',
  '\u00a0',
  'last without a line feed 🧾',
].join('\n');

describe('the line reader', () => {
  it('gives the lines readline gives, blank ones left out, however the bytes are cut', async () => {
    const bytes = Buffer.from(TEXT);
    const expected = await byReadline(bytes);
    expect(expected).toEqual([
      '{"a":"é"}',
      '{"b":"🧾 ü"}',
      '\t{"c":1}',
      'x',
      'y',
      '{"d":"\u00a0"}',
      'last without a line feed 🧾',
    ]);
    // Every cut, also inside the four bytes of 🧾 and between \r and \n.
    for (const size of [1, 2, 3, 5, 7, 64, bytes.length])
      for (const least of [1, 8, 1 << 20]) {
        const { lines, blocks } = await byBlocks(chunked(bytes, size), least);
        expect(lines, `chunks of ${size}, blocks of ${least}`).toEqual(expected);
        expect(blocks.join('')).toBe(bytes.toString('latin1'));
        for (const block of blocks.slice(0, -1)) expect(block.endsWith('\n')).toBe(true);
      }
  });

  it('gives every line of a file that ends with a line feed, CRLF or not, and nothing of an empty one', async () => {
    for (const eol of ['\n', '\r\n']) {
      const bytes = Buffer.from(`{"a":1}${eol}{"b":2}${eol}${eol}`);
      expect((await byBlocks(chunked(bytes, 3), 4)).lines).toEqual(await byReadline(bytes));
      expect((await byBlocks([bytes], 4)).lines).toEqual(['{"a":1}', '{"b":2}']);
    }
    expect(await byBlocks([], 4)).toEqual({ lines: [], blocks: [] });
  });

  it('reads gzip output, in whatever chunks it comes', async () => {
    const text = Array.from({ length: 2000 }, (_, i) => `{"n":${i},"t":"ü🧾"}`).join('\r\n');
    const gunzip = Readable.from([gzipSync(text)]).pipe(createGunzip({ chunkSize: 1000 }));
    const { lines, blocks } = await byBlocks(gunzip, 4096);
    expect(lines).toEqual(text.split('\r\n'));
    expect(blocks.length).toBeGreaterThan(2);
  });

  it('reads a file into blocks of whole lines, lines longer than a block too, in the memory of blocks it is given back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'file-blocks-'));
    try {
      const long = `{"long":"${'ü'.repeat(300)}"}`;
      const text = [TEXT, long, ...Array.from({ length: 200 }, (_, i) => `{"n":${i},"t":"🧾"}`), long].join(
        '\r\n',
      );
      const path = join(dir, 'export.ndjson');
      writeFileSync(path, text);
      const expected = await byReadline(Buffer.from(text));
      for (const size of [1, 7, 64, 500, 1 << 20]) {
        const spare: ArrayBuffer[] = [];
        const lines: string[] = [];
        const blocks: string[] = [];
        const memory = new Set<ArrayBuffer>();
        for await (const block of fileBlocks(path, size, spare)) {
          blocks.push(block.toString('latin1'));
          eachLine(block, (line) => lines.push(line));
          memory.add(block.buffer as ArrayBuffer);
          // Given back as the row threads give it, whole, the block's bytes overwritten by whoever reads next.
          spare.push(block.buffer as ArrayBuffer);
        }
        expect(lines, `blocks of ${size}`).toEqual(expected);
        expect(blocks.join('')).toBe(Buffer.from(text).toString('latin1'));
        for (const block of blocks.slice(0, -1)) expect(block.endsWith('\n')).toBe(true);
        if (size === 64) expect(memory.size).toBeLessThan(blocks.length);
      }
      writeFileSync(path, '');
      for await (const block of fileBlocks(path, 64, []))
        expect.unreachable(`a block of ${block.length} bytes`);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
