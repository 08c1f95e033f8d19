import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exportFileName,
  filesystemExportFiles,
  s3ExportFiles,
  type ExportFiles,
} from '@audit/shared/export-jobs';
import { uniqueNames } from '../support/names.js';
import {
  createTestBucket,
  dropTestBucket,
  incompleteUploads,
  objectKeys,
  s3TestSettings,
} from '../support/s3.js';
import { exportDir } from '../support/stack.js';

// The same contract (docs/exports.md "Files") from both stores: a directory, and S3Proxy's real S3 API.
const names = uniqueNames('expfiles');
const s3 = s3TestSettings(names);
const stores: [string, ExportFiles][] = [
  ['filesystem', filesystemExportFiles(exportDir(names))],
  // Frozen, as every loaded config is.
  ['s3', s3ExportFiles(Object.freeze({ ...s3, credentials: Object.freeze({ ...s3.credentials! }) }))],
];

// Three parts of S3's smallest size and a small last one.
const FILE = randomBytes(3 * 5 * 1024 * 1024 + 12_345);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Writes `bytes` in pieces of a gzip stream's size, as the exporter does. */
async function write(store: ExportFiles, jobId: string, bytes: Buffer, attempt = 1) {
  const upload = await store.create(jobId, 'ndjson', attempt);
  const pieces = Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, i) =>
    bytes.subarray(i * 65_536, (i + 1) * 65_536),
  );
  await pipeline(Readable.from(pieces), upload.stream);
  return upload;
}

beforeAll(async () => {
  await createTestBucket(names);
  // Made when missing, and re-runnable.
  for (const [, store] of stores) await store.prepare();
  for (const [, store] of stores) await store.prepare();
});

afterAll(async () => {
  await dropTestBucket(names);
  rmSync(exportDir(names), { recursive: true, force: true });
});

describe('export files in a directory', () => {
  it("are their owner's only, as the directory made for them", async () => {
    const jobId = randomUUID();
    await (await write(stores[0]![1], jobId, Buffer.from('{}\n'))).publish();
    const dir = exportDir(names);
    expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
    expect((statSync(join(dir, exportFileName(jobId, 'ndjson'))).mode & 0o777).toString(8)).toBe('600');
  });
});

describe.each(stores)('export files in %s', (kind, store) => {
  it('a file is invisible until published, then whole, and any byte range reads back', async () => {
    const jobId = randomUUID();
    const upload = await write(store, jobId, FILE);
    expect(await store.size(jobId, 'ndjson')).toBeNull();
    await upload.publish();
    expect(await store.size(jobId, 'ndjson')).toBe(FILE.length);
    expect(sha(await buffer(await store.read(jobId, 'ndjson', 0, FILE.length - 1)))).toBe(sha(FILE));
    for (const [start, end] of [
      [0, 0],
      [5 * 1024 * 1024 - 1, 5 * 1024 * 1024],
      [FILE.length - 10, FILE.length - 1],
    ] as const) {
      expect(await buffer(await store.read(jobId, 'ndjson', start, end))).toEqual(
        FILE.subarray(start, end + 1),
      );
    }
    await store.remove(jobId, 'ndjson');
    expect(await store.size(jobId, 'ndjson')).toBeNull();
    await expect(store.read(jobId, 'ndjson', 0, 0)).rejects.toThrow();
  });

  it('an empty file publishes as zero bytes', async () => {
    const jobId = randomUUID();
    await (await write(store, jobId, Buffer.alloc(0))).publish();
    expect(await store.size(jobId, 'ndjson')).toBe(0);
    await store.remove(jobId, 'ndjson');
  });

  it('a discarded file leaves nothing', async () => {
    const jobId = randomUUID();
    const upload = await write(store, jobId, FILE.subarray(0, 6 * 1024 * 1024));
    await upload.discard();
    expect(await store.size(jobId, 'ndjson')).toBeNull();
    if (kind === 's3') expect(await incompleteUploads(s3)).toEqual([]);
  });

  it("what a killed attempt left is removed, and the next attempt's file replaces it", async () => {
    const jobId = randomUUID();
    // Written, never published nor discarded: the exporter died.
    await write(store, jobId, FILE.subarray(0, 7 * 1024 * 1024));
    if (kind === 's3') expect((await incompleteUploads(s3)).length).toBe(1);
    await store.remove(jobId, 'ndjson');
    if (kind === 's3') expect(await incompleteUploads(s3)).toEqual([]);
    await (await write(store, jobId, FILE, 2)).publish();
    expect(await store.size(jobId, 'ndjson')).toBe(FILE.length);
    await store.remove(jobId, 'ndjson');
    if (kind === 's3') expect(await objectKeys(s3)).toEqual([]);
  });
});
