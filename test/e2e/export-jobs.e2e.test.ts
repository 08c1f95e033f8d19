import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../services/exporter/src/domain/csv-format.js';
import { clusteredEvents, ingest } from '../support/events.js';
import { readExport } from '../support/export-readers.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pageThrough } from '../support/paging.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import {
  createTestBucket,
  dropTestBucket,
  incompleteUploads,
  objectKeys,
  s3StorageEnv,
  s3TestSettings,
} from '../support/s3.js';
import { exporterService } from '../support/stack.js';
import { countRows } from '../support/stored-events.js';
import { byVolume } from '../support/volume.js';
import { waitFor } from '../support/wait-for.js';

const TOTAL = byVolume(200_000, 40_000);
const { names, ingest: ingestProc, ch } = pipelineFixture('expjobs');
// The files go to S3 (S3Proxy, the test's own bucket): the filesystem store has the same contract
// (test/int/export-files.int.test.ts). Paging 200,000 events a few times takes more reads than a key may make in a
// minute by default.
const gw = gatewayFixture(names, { env: { ...s3StorageEnv(names), RATE_LIMIT_READ_PER_MIN: '100000' } });
const bucket = s3TestSettings(names);
const BASE = Date.now() - 3 * 86_400_000;
const SINCE = new Date(BASE - 1).toISOString();
const tmp = mkdtempSync(join(tmpdir(), 'export-jobs-'));

interface JobView {
  id: string;
  status: string;
  until: string;
  format: string;
  progress: { rows_written: number; bytes_written: number; rows_expected: number | null };
  manifest: {
    row_count: number;
    byte_size: number;
    sha256: string;
    first: { timestamp: string; event_id: string } | null;
    last: { timestamp: string; event_id: string } | null;
  } | null;
  error: { code: string; message: string } | null;
}

let exporterKey: string;
let readerKey: string;
let exporter: ReturnType<typeof exporterService>;
let listed: { event_id: string; timestamp: string }[];

async function createJob(body: Record<string, unknown>, key = exporterKey) {
  const res = await gw.send('POST', '/audit/exports', key, body);
  expect(res.status, res.text).toBe(202);
  return JSON.parse(res.text) as JobView;
}

const job = async (id: string, key = exporterKey) => {
  const res = await gw.get(`/audit/exports/${id}`, key);
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text) as JobView;
};

const ended = (id: string) =>
  waitFor(
    `export job ${id} to end`,
    async () => {
      const view = await job(id);
      return view.status === 'succeeded' || view.status === 'failed' ? view : undefined;
    },
    { timeoutMs: 300_000 },
  );

/** The file's bytes, in one request or in ranges of `piece` bytes. */
async function download(id: string, piece?: number): Promise<Buffer> {
  const url = `${gw.url()}/api/v2/public/audit/exports/${id}/download`;
  const auth = { authorization: `Bearer ${exporterKey}` };
  if (!piece) {
    const res = await fetch(url, { headers: auth });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  }
  const parts: Buffer[] = [];
  for (let start = 0; ; start += piece) {
    const res = await fetch(url, { headers: { ...auth, range: `bytes=${start}-${start + piece - 1}` } });
    if (res.status === 416) break;
    expect(res.status).toBe(206);
    const total = Number(/\/(\d+)$/.exec(res.headers.get('content-range') ?? '')?.[1]);
    parts.push(Buffer.from(await res.arrayBuffer()));
    if (start + piece >= total) break;
  }
  return Buffer.concat(parts);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  await createTestBucket(names);
  exporterKey = await gw.mint(names.tenant, 'audit:export');
  readerKey = await gw.mint(names.tenant, 'audit:read');
  const sent = clusteredEvents(names.tenant, TOTAL, BASE, 300);
  for (let i = 0; i < sent.length; i += 1000) {
    expect((await ingest(ingestProc.url, names.ingestToken, sent.slice(i, i + 1000))).status).toBe(202);
  }
  // The sent events and the two admin.key.create events of the keys above.
  await waitFor('events stored', async () => (await countRows(ch, names.tenant)) === TOTAL + 2, {
    timeoutMs: 300_000,
  });
  listed = (await pageThrough(gw.get, `since=${SINCE}&limit=1000`, readerKey)) as unknown as typeof listed;
  exporter = exporterService(names, gw.databaseUrl(), {
    ...s3StorageEnv(names),
    EXPORT_JOB_PROGRESS_MS: '200',
  });
  await exporter.start();
}, 900_000);

afterAll(async () => {
  await exporter?.stop();
  await dropTestBucket(names);
  rmSync(tmp, { recursive: true, force: true });
});

describe('export jobs through the API, on the real stack', () => {
  it('NDJSON: the window row for row as the list pages it, while events arrive; a resumed download is the same file', async () => {
    const created = await createJob({ since: SINCE, format: 'ndjson' });
    expect(created.status).toBe('queued');
    // Inside the window but ingested after the job was accepted: never in its file.
    const late = clusteredEvents(names.tenant, 2000, BASE + 5000, 300).map((e) => ({
      ...e,
      event_id: randomUUID(),
    }));
    for (let i = 0; i < late.length; i += 500) {
      expect((await ingest(ingestProc.url, names.ingestToken, late.slice(i, i + 500))).status).toBe(202);
    }
    const done = await ended(created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    const bytes = await download(created.id);
    expect(sha256(bytes)).toBe(done.manifest!.sha256);
    expect(bytes.length).toBe(done.manifest!.byte_size);
    const rows = gunzipSync(bytes)
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { event_id: string });
    expect(rows.length).toBe(listed.length);
    expect(rows.map((r) => r.event_id)).toEqual(listed.map((e) => e.event_id));
    expect(rows).toEqual(listed);
    expect(done.manifest!.first).toEqual({ timestamp: listed[0]!.timestamp, event_id: listed[0]!.event_id });
    expect(done.manifest!.last).toEqual({
      timestamp: listed.at(-1)!.timestamp,
      event_id: listed.at(-1)!.event_id,
    });
    // A broken download resumed with Range: pieces of about a third, reassembled.
    expect(sha256(await download(created.id, Math.ceil(bytes.length / 3)))).toBe(done.manifest!.sha256);
  });

  it.each([
    ['csv', CSV_COLUMNS.map((c) => [c, 'string', false])],
    [
      'parquet',
      CSV_COLUMNS.map((c) => [
        c,
        c === 'timestamp'
          ? 'timestamp[ms, tz=UTC]'
          : c === 'phi_involved' || c === 'success' || c === 'disclosure'
            ? 'bool'
            : 'string',
        false,
      ]),
    ],
  ])(
    '%s: the same rows in the documented columns and types, read back by a third-party reader',
    async (format, columns) => {
      const until = new Date().toISOString();
      const created = await createJob({ since: SINCE, until, format });
      const done = await ended(created.id);
      expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
      const file = join(tmp, `${created.id}.${format}`);
      writeFileSync(file, await download(created.id));
      const read = await readExport(format, file);
      expect(read.columns).toEqual(columns);
      // The list now also holds the events ingested during the first job, and the first job's own events.
      const now = await pageThrough(gw.get, `since=${SINCE}&until=${until}&limit=1000`, readerKey);
      expect(read.rows.length).toBe(now.length);
      expect(read.rows.map((r) => r.event_id)).toEqual(now.map((e) => e.event_id));
      expect(read.rows).toEqual(now);
    },
  );

  it("another tenant's job answers as one that does not exist", async () => {
    const created = await createJob({ since: SINCE, format: 'ndjson', action: 'phi.read' });
    const other = await gw.mint(`${names.tenant}-other`, 'audit:export,audit:read');
    const missing = await gw.get(`/audit/exports/${randomUUID()}`, other);
    for (const path of [`/audit/exports/${created.id}`, `/audit/exports/${created.id}/download`]) {
      const res = await gw.get(path, other);
      expect(res.status).toBe(404);
      expect(res.text).toBe(missing.text);
    }
    const list = JSON.parse((await gw.get('/audit/exports', other)).text) as { exports: unknown[] };
    expect(list.exports).toEqual([]);
    await ended(created.id);
  });

  it('a job whose exporter is killed with SIGKILL mid-file still ends in one correct file', async () => {
    await exporter.stop();
    // Small chunks make the job long enough to be caught mid-file.
    exporter = exporterService(names, gw.databaseUrl(), {
      ...s3StorageEnv(names),
      EXPORT_JOB_PROGRESS_MS: '50',
      EXPORT_JOB_CHUNK_ROWS: '500',
      // The killed exporter's job is taken up again once its lease runs out.
      EXPORT_JOB_LEASE_MS: '3000',
      EXPORT_JOB_RETRY_BASE_MS: '100',
    });
    await exporter.start();
    const created = await createJob({ since: SINCE, format: 'ndjson' });
    await waitFor('the job to be mid-file', async () => (await job(created.id)).progress.rows_written > 0, {
      intervalMs: 20,
    });
    await exporter.stop('SIGKILL');
    expect((await job(created.id)).status).toBe('running');
    // The killed attempt's multipart upload is left in the store, until the next attempt aborts it.
    expect(await incompleteUploads(bucket)).toEqual([`exports/${created.id}.ndjson.gz`]);
    await exporter.start();
    const done = await ended(created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    const rows = gunzipSync(await download(created.id))
      .toString('utf8')
      .trimEnd()
      .split('\n');
    // Up to the job's fixed until: the list also holds this job's own audit.export events, written after it.
    const now = await pageThrough(
      gw.get,
      `since=${SINCE}&until=${encodeURIComponent(done.until)}&limit=1000`,
      readerKey,
    );
    expect(rows.map((l) => (JSON.parse(l) as { event_id: string }).event_id)).toEqual(
      now.map((e) => e.event_id),
    );
    expect(sha256(await download(created.id))).toBe(done.manifest!.sha256);
    expect(await incompleteUploads(bucket)).toEqual([]);
  });

  it('expiry deletes the file, and the job says expired', async () => {
    await exporter.stop();
    exporter = exporterService(names, gw.databaseUrl(), {
      ...s3StorageEnv(names),
      EXPORT_JOB_FILE_TTL_HOURS: '0.0005',
      EXPORT_JOB_EXPIRY_SWEEP_MS: '200',
    });
    await exporter.start();
    const created = await createJob({ since: SINCE, format: 'csv', action: 'phi.decrypt' });
    await waitFor('expired', async () => (await job(created.id)).status === 'expired');
    const res = await gw.get(`/audit/exports/${created.id}/download`, exporterKey);
    expect(res.status).toBe(410);
    // The job says expired once its lifetime ends; the exporter's next sweep deletes the file.
    await waitFor('the file deleted', async () =>
      (await objectKeys(bucket)).includes(`exports/${created.id}.csv.gz`) ? undefined : true,
    );
  });
});
