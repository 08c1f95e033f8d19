import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UploadPartCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { MultipartWriter } from './s3-multipart.writer.js';

const TARGET = { Bucket: 'b', Key: 'k', UploadId: 'u' };

/** A store's `send` that keeps every part, answers in `delayMs`, and refuses part `refuse`. */
function store(opts: { refuse?: number; delayMs?: number } = {}) {
  const parts: { number: number; body: Buffer; md5: string }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const send = async (command: UploadPartCommand) => {
    const input = command.input;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, opts.delayMs ?? 1));
    inFlight--;
    if (input.PartNumber === opts.refuse) throw new Error(`part ${input.PartNumber} refused`);
    parts.push({ number: input.PartNumber!, body: input.Body as Buffer, md5: input.ContentMD5! });
    return { ETag: `"etag-${input.PartNumber}"` };
  };
  return { send: send as never, parts, maxInFlight: () => maxInFlight };
}

const pieces = (total: number, size: number) =>
  Array.from({ length: Math.ceil(total / size) }, (_, i) =>
    Buffer.alloc(Math.min(size, total - i * size), i % 251),
  );

describe('MultipartWriter', () => {
  it('cuts the bytes into parts of at least the part size but the last, each with its MD5', async () => {
    const s = store();
    const writer = new MultipartWriter(s, TARGET, 1000);
    const input = pieces(3700, 300);
    await pipeline(Readable.from(input), writer);
    const sorted = [...s.parts].sort((a, b) => a.number - b.number);
    expect(Buffer.concat(sorted.map((p) => p.body))).toEqual(Buffer.concat(input));
    expect(sorted.slice(0, -1).every((p) => p.body.length >= 1000)).toBe(true);
    expect(sorted.map((p) => p.body.length)).toEqual([1200, 1200, 1200, 100]);
    for (const p of sorted) expect(p.md5).toBe(createHash('md5').update(p.body).digest('base64'));
    expect(writer.parts).toEqual(sorted.map((p) => ({ PartNumber: p.number, ETag: `"etag-${p.number}"` })));
  });

  it('holds at most two parts in flight', async () => {
    const s = store({ delayMs: 5 });
    await pipeline(Readable.from(pieces(20_000, 500)), new MultipartWriter(s, TARGET, 1000));
    expect(s.maxInFlight()).toBe(2);
  });

  it('sends one empty part for an empty file: an upload needs one', async () => {
    const s = store();
    const writer = new MultipartWriter(s, TARGET, 1000);
    await pipeline(Readable.from([]), writer);
    expect(s.parts.map((p) => p.body.length)).toEqual([0]);
    expect(writer.parts).toHaveLength(1);
  });

  it('fails the stream when the store refuses a part, the last one included', async () => {
    for (const refuse of [1, 2, 4]) {
      const s = store({ refuse });
      const writer = new MultipartWriter(s, TARGET, 1000);
      // Four parts, the last sent when the stream ends.
      await expect(pipeline(Readable.from(pieces(3700, 300)), writer)).rejects.toThrow(
        `part ${refuse} refused`,
      );
      await writer.settled();
    }
  });
});
