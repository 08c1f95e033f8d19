import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJobsRepository as jobs, filesystemExportFiles } from '@audit/shared/export-jobs';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { uniqueNames } from '../support/names.js';
import { cleanUp, exportDir } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

// A file far larger than what the sockets' buffers hold: a client that does not read keeps its download running.
const FILE = randomBytes(24 * 1024 * 1024);

/** A gateway of its own, with its own database and export directory, and one succeeded job with FILE as its file. */
function downloadsFixture(label: string, env: Record<string, string>) {
  const names = uniqueNames(label);
  const gw = gatewayFixture(names, { env: { ...env, EXPORT_DIR: exportDir(names) } });
  const jobId = randomUUID();
  beforeAll(async () => {
    const db = new pg.Pool({ connectionString: gw.databaseUrl() });
    try {
      const now = Date.now();
      const request = {
        jobId,
        tenantId: names.tenant,
        format: 'ndjson' as const,
        filters: { since: now - 60_000 },
        since: now - 60_000,
        until: now,
        acceptedAt: now,
        requestedBy: 'ak_test',
      };
      await jobs.insert(db, request);
      const start = await jobs.claim(db, { now, leaseMs: 60_000, maxAttempts: 1, perTenant: 1 });
      if (!start || !('attempt' in start)) throw new Error('the job did not start');
      const upload = await filesystemExportFiles(exportDir(names)).create(jobId, 'ndjson', 1);
      await pipeline(Readable.from([FILE]), upload.stream);
      await upload.publish();
      const manifest = {
        rowCount: 1,
        byteSize: FILE.length,
        sha256: createHash('sha256').update(FILE).digest('hex'),
        first: null,
        last: null,
      };
      expect(await jobs.succeed(db, jobId, start.attempt, manifest, now, now + 3_600_000)).toBe(true);
    } finally {
      await db.end();
    }
  });
  afterAll(async () => {
    rmSync(exportDir(names), { recursive: true, force: true });
    await cleanUp(names);
  });
  const download = (key: string) =>
    fetch(`${gw.url()}/api/v2/public/audit/exports/${jobId}/download`, {
      headers: { authorization: `Bearer ${key}` },
    });
  return { names, gw, download };
}

const capped = downloadsFixture('dlcap', {
  EXPORT_DOWNLOADS_PER_KEY: '2',
  EXPORT_DOWNLOADS_PER_TENANT: '3',
  EXPORT_DOWNLOADS: '10',
});
const rated = downloadsFixture('dlrate', {
  EXPORT_DOWNLOAD_MIN_BYTES_PER_S: String(1024 * 1024),
  EXPORT_DOWNLOAD_RATE_WINDOW_MS: '1000',
});

describe('downloads of export files', () => {
  it('run at most so many at once per key and per tenant; an ended one gives its place back', async () => {
    const { gw, download, names } = capped;
    const [one, two] = [
      await gw.mint(names.tenant, 'audit:export'),
      await gw.mint(names.tenant, 'audit:export'),
    ];
    const held = [await download(one), await download(one)];
    expect(held.map((r) => r.status)).toEqual([200, 200]);
    const third = await download(one);
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ scope: 'concurrent_downloads', retry_after_s: 10 });
    // Another key of the tenant: one more, up to the tenant's three.
    held.push(await download(two));
    expect(held[2]!.status).toBe(200);
    expect((await download(two)).status).toBe(429);
    // The client gives up one download: its key may download again.
    await held[0]!.body!.cancel();
    const again = await waitFor('a place given back', async () => {
      const res = await download(one);
      if (res.status !== 200) await res.body?.cancel();
      return res.status === 200 && res;
    });
    for (const res of [...held.slice(1), again]) await res.body!.cancel();
  });

  it('are ended when they send less than the least rate over a window', async () => {
    const { gw, download, names } = rated;
    const res = await download(await gw.mint(names.tenant, 'audit:export'));
    expect(res.status).toBe(200);
    // A reader of a chunk every fifth of a second, far below 1 MiB a second: ended before the file's end.
    let received = 0;
    const reading = (async () => {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        received += chunk.length;
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    await expect(reading).rejects.toThrow();
    expect(received).toBeLessThan(FILE.length);
  });
});
