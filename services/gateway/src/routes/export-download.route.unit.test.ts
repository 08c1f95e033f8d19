import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey } from '@audit/shared/api-keys';
import {
  exportFileName,
  filesystemExportFiles,
  type ExportFiles,
  type ExportJob,
} from '@audit/shared/export-jobs';
import { storedKeyFor } from '@audit/shared/test-support';
import { buildApp } from '../app.js';
import { jobRequest, memoryExportJobs, succeededJob } from '../test-support/export-jobs.js';
import { STUB_PEPPER, stubAppOptions } from '../test-support/stub-app-options.js';

const key = generateApiKey('live');
const auth = { authorization: `Bearer ${formatApiKey(key)}` };
const NOW = Date.UTC(2026, 10, 21, 9, 30);
const FILE = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
const SHA = 'cd'.repeat(32);
const ETAG = `"${SHA}"`;

const job = succeededJob(jobRequest('acme', NOW - 3600_000), FILE.length, SHA);
const url = (j: ExportJob = job) => `/api/v2/public/audit/exports/${j.jobId}/download`;

/** A file store holding the job's file; `reads` records every range read from it. */
function files(content: Buffer | null = FILE) {
  const reads: [number, number][] = [];
  const store: Pick<ExportFiles, 'size' | 'read'> = {
    size: async () => content?.length ?? null,
    read: async (_id, _format, start, end) => {
      reads.push([start, end]);
      return content ? Readable.from([content.subarray(start, end + 1)]) : Readable.from([]);
    },
  };
  return { store, reads };
}

async function download(
  headers: Record<string, string> = {},
  opts: {
    jobs?: ExportJob[];
    files?: Pick<ExportFiles, 'size' | 'read'>;
    method?: 'GET' | 'HEAD';
    of?: ExportJob;
    audited?: unknown[];
    publish?: () => Promise<string[]>;
  } = {},
) {
  const app = await buildApp(
    stubAppOptions({
      auth: {
        pepper: STUB_PEPPER,
        env: 'live',
        findKey: async () => storedKeyFor(key, STUB_PEPPER, { scopes: ['audit:export'] }),
      },
      clock: () => NOW,
      exportJobs: memoryExportJobs(opts.jobs ?? [job]),
      exportFiles: opts.files ?? files().store,
      auditLog: {
        publish:
          opts.publish ??
          (async (events: readonly unknown[]) => {
            opts.audited?.push(...events);
            return [];
          }),
      },
    }),
  );
  const res = await app.inject({
    method: opts.method ?? 'GET',
    url: url(opts.of),
    headers: { ...auth, ...headers },
  });
  await app.close();
  return res;
}

describe('GET /audit/exports/{id}/download', () => {
  it('sends the whole file with its validators and name', async () => {
    const res = await download();
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(FILE)).toBe(true);
    expect(res.headers).toMatchObject({
      'accept-ranges': 'bytes',
      etag: ETAG,
      'content-type': 'application/gzip',
      'content-length': '1000',
      'content-disposition': `attachment; filename="${job.jobId}.csv.gz"`,
      'cache-control': 'no-store',
    });
    expect(res.headers['content-range']).toBeUndefined();
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=900-', 900, 999],
    ['bytes=-10', 990, 999],
    ['bytes=500-5000', 500, 999],
  ])('answers %s with 206 and those bytes only', async (range, start, end) => {
    const { store, reads } = files();
    const res = await download({ range }, { files: store });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/1000`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.rawPayload.equals(FILE.subarray(start, end + 1))).toBe(true);
    expect(reads).toEqual([[start, end]]);
  });

  it.each(['bytes=1000-', 'bytes=-0', 'bytes=5000-6000'])(
    'answers %s with 416 and the size',
    async (range) => {
      const { store, reads } = files();
      const res = await download({ range }, { files: store });
      expect(res.statusCode).toBe(416);
      expect(res.headers['content-range']).toBe('bytes */1000');
      expect(res.json()).toMatchObject({ error: 'range_not_satisfiable' });
      expect(reads).toEqual([]);
    },
  );

  it.each(['bytes=0-1,5-9', 'bytes=9-5', 'lines=0-9', 'bytes=abc', 'bytes=-'])(
    'ignores %s (several ranges or malformed) and sends the whole file',
    async (range) => {
      const res = await download({ range });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(FILE)).toBe(true);
    },
  );

  it('applies the range only while If-Range names the current ETag', async () => {
    expect((await download({ range: 'bytes=0-9', 'if-range': ETAG })).statusCode).toBe(206);
    for (const stale of [`"${'ef'.repeat(32)}"`, `W/${ETAG}`, 'Wed, 21 Oct 2026 07:28:00 GMT']) {
      const res = await download({ range: 'bytes=0-9', 'if-range': stale });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(FILE)).toBe(true);
    }
  });

  it('names the parquet file and its media type', async () => {
    const parquet = { ...job, format: 'parquet' as const };
    const res = await download({}, { jobs: [parquet], of: parquet });
    expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${job.jobId}.parquet"`);
  });

  it('answers HEAD with the headers of GET, without reading the file', async () => {
    const { store, reads } = files();
    const res = await download({ range: 'bytes=0-9' }, { files: store, method: 'HEAD' });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-length']).toBe('10');
    expect(res.body).toBe('');
    expect(reads).toEqual([]);
  });

  it.each(['queued', 'running', 'failed'] as const)(
    'answers 409 export_not_ready for a %s job',
    async (status) => {
      const pending = { ...job, status, manifest: null, expiresAt: null };
      const res = await download({}, { jobs: [pending] });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        error: 'export_not_ready',
        message: `The export job is ${status}: only a succeeded job has a file to download.`,
      });
    },
  );

  it('answers 410 export_expired for an expired job, one whose lifetime ended, and one whose file is gone', async () => {
    const answers = [
      await download({}, { jobs: [{ ...job, status: 'expired' }] }),
      await download({}, { jobs: [{ ...job, expiresAt: NOW }] }),
      await download({}, { files: files(null).store }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([410, 410, 410]);
    expect(new Set(answers.map((r) => r.body)).size).toBe(1);
    expect(answers[0]!.json().error).toBe('export_expired');
  });

  it('answers 503 when the file cannot be read, before anything is sent', async () => {
    const broken = {
      size: async () => FILE.length,
      read: async () => {
        throw Object.assign(new Error('EIO'), { code: 'EIO' });
      },
    };
    const res = await download({}, { files: broken });
    expect(res.statusCode).toBe(503);
    expect(res.headers.etag).toBeUndefined();
  });

  it("answers 404 for another tenant's job and an unknown id", async () => {
    const theirs = succeededJob(jobRequest('other', NOW - 1000), FILE.length);
    expect((await download({}, { jobs: [theirs], of: theirs })).statusCode).toBe(404);
    expect((await download({}, { jobs: [], of: job })).statusCode).toBe(404);
  });

  it('sends an empty file as an empty body', async () => {
    const empty = succeededJob(jobRequest('acme', NOW - 1000), 0);
    const res = await download({}, { jobs: [empty], of: empty, files: files(Buffer.alloc(0)).store });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe('0');
    expect(res.body).toBe('');
  });

  it('serves a file of the local directory store, whole and by range, and 410 once it is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'export-download-'));
    try {
      const store = filesystemExportFiles(dir);
      // Several reads' worth: the stream flows on after its first bytes were awaited.
      const big = randomBytes(300_000);
      await writeFile(join(dir, exportFileName(job.jobId, job.format)), big);
      const whole = await download({}, { files: store });
      expect(whole.headers['content-length']).toBe('300000');
      expect(whole.rawPayload.equals(big)).toBe(true);
      const part = await download({ range: 'bytes=100000-' }, { files: store });
      expect(part.statusCode).toBe(206);
      expect(part.rawPayload.equals(big.subarray(100_000))).toBe(true);
      await store.remove(job.jobId, job.format);
      expect((await download({}, { files: store })).statusCode).toBe(410);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('audits every GET that sends bytes before sending, with its range; HEAD sends none and writes none', async () => {
    const audited: unknown[] = [];
    expect((await download({}, { audited })).statusCode).toBe(200);
    expect((await download({ range: 'bytes=1-' }, { audited })).statusCode).toBe(206);
    expect((await download({}, { audited, method: 'HEAD' })).statusCode).toBe(200);
    expect(audited).toHaveLength(2);
    expect(audited[0]).toMatchObject({
      tenant_id: 'acme',
      action: 'audit.export',
      resource_type: 'audit_export',
      resource_id: job.jobId,
      success: true,
      details: {
        kind: 'job',
        stage: 'downloaded',
        format: job.format,
        sha256: SHA,
        range: { start: 0, end: 999 },
        size: 1000,
      },
    });
    expect(audited[1]).toMatchObject({ details: { range: { start: 1, end: 999 }, size: 1000 } });
  });

  it('sends nothing when Kafka does not take the download event: 503', async () => {
    const { store, reads } = files();
    const res = await download({}, { files: store, publish: () => Promise.reject(new Error('kafka down')) });
    expect(res.statusCode).toBe(503);
    expect(reads).toEqual([]);
  });
});
