import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPublisher } from '@audit/shared/audit-topic';
import { auditEventCodec, systemClock } from '@audit/shared/contract';
import {
  exportFileName,
  exportJobsRepository as jobs,
  filesystemExportFiles,
  inFlight,
  type ExportJobRequest,
} from '@audit/shared/export-jobs';
import { migratePostgres } from '@audit/shared/migrations';
import { DurableProducer, createLogger, sleep } from '@audit/shared/platform';
import { liveTables, projectionStateStore } from '@audit/shared/projection';
import { expireDue } from '../../services/exporter/src/adapters/expiry.sweeper.js';
import {
  runClaimed,
  StoppingError,
  type JobRunnerDeps,
} from '../../services/exporter/src/adapters/job.runner.js';
import { readTurns } from '../../services/exporter/src/domain/read-turns.js';
import { CSV_COLUMNS } from '../../services/exporter/src/domain/csv-format.js';
import { clusteredEvents, ingest } from '../support/events.js';
import { gatewayFixture } from '../support/gateway-fixture.js';
import { pageThrough } from '../support/paging.js';
import { pipelineFixture } from '../support/pipeline-fixture.js';
import { exportDir } from '../support/stack.js';
import { countRows } from '../support/stored-events.js';
import { waitFor } from '../support/wait-for.js';

const { names, ingest: ingestProc, ch, kafka, topics } = pipelineFixture('exprun');
const gw = gatewayFixture(names);
const dir = exportDir(names);
const files = filesystemExportFiles(dir);
const BASE = Date.now() - 2 * 86_400_000;
const TOTAL = 3000;

let pool: pg.Pool;
let producer: DurableProducer;
let admin: ReturnType<typeof kafka.admin>;
let deps: JobRunnerDeps;
let reader: string;

function request(
  format: ExportJobRequest['format'],
  filters: ExportJobRequest['filters'] = {},
): ExportJobRequest {
  return {
    jobId: randomUUID(),
    tenantId: names.tenant,
    format,
    filters: { ...filters, since: BASE - 1 },
    since: BASE - 1,
    until: Date.now(),
    acceptedAt: Date.now(),
    requestedBy: 'ak_test',
  };
}

/** The exporter's work on a job alone in the queue: taken, attempt after attempt, until it has ended. */
async function runJob(d: JobRunnerDeps, job: ExportJobRequest): Promise<void> {
  const take = { leaseMs: d.settings.leaseMs, maxAttempts: d.settings.maxAttempts, perTenant: 1 };
  for (;;) {
    const claim = await jobs.claim(d.pool, { ...take, now: Date.now() });
    if (claim) await runClaimed(d, claim, new AbortController().signal);
    else if (!inFlight((await jobs.find(d.pool, job.jobId))!.status)) return;
    else await sleep(50);
  }
}

/** The list's query of the job's window. */
const window = (job: ExportJobRequest) =>
  `since=${new Date(job.since).toISOString()}&until=${new Date(job.until).toISOString()}&limit=1000`;

/** The job's file, gunzipped. */
const fileText = (job: ExportJobRequest) =>
  gunzipSync(readFileSync(`${dir}/${exportFileName(job.jobId, job.format)}`)).toString('utf8');

let listed: { event_id: string; timestamp: string }[];
let ndjsonJob: ExportJobRequest;

beforeAll(async () => {
  reader = await gw.mint(names.tenant, 'audit:read');
  const sent = clusteredEvents(names.tenant, TOTAL, BASE, 700);
  for (let i = 0; i < TOTAL; i += 1000) {
    const batch = sent.slice(i, i + 1000);
    expect((await ingest(ingestProc.url, names.ingestToken, batch)).status).toBe(202);
  }
  // The events and the admin.key.create event of the key above.
  await waitFor('events stored', async () => (await countRows(ch, names.tenant)) === TOTAL + 1);
  pool = new pg.Pool({ connectionString: gw.databaseUrl() });
  await migratePostgres(gw.databaseUrl());
  producer = new DurableProducer(kafka);
  await producer.connect();
  admin = kafka.admin();
  await admin.connect();
  deps = {
    pool,
    clickhouse: ch,
    tables: liveTables(projectionStateStore(ch), { ready: async () => false }),
    files,
    admin,
    auditTopics: async () => [topics.auditEvents.name],
    projectorGroup: names.groupId,
    audit: auditPublisher({
      producer,
      topic: topics.auditEvents.name,
      codec: auditEventCodec(),
      clock: systemClock,
    }),
    turns: readTurns(2),
    clock: systemClock,
    // Small chunks: this window is read in several, some boundaries inside runs of ties.
    settings: {
      chunkRows: 250,
      maxAttempts: 2,
      fileTtlMs: 3_600_000,
      projectionTimeoutMs: 60_000,
      progressMs: 50,
      retryBaseMs: 100,
      settleMs: 0,
      leaseMs: 60_000,
    },
    logger: createLogger('exporter-test', 'silent'),
  };
  ndjsonJob = request('ndjson');
  await jobs.insert(pool, ndjsonJob);
  listed = (await pageThrough(
    gw.get,
    `since=${new Date(BASE - 1).toISOString()}&limit=1000`,
    reader,
  )) as unknown as typeof listed;
  // Ingested after the job was accepted, inside its window: never in its file.
  const late = clusteredEvents(names.tenant, 50, BASE + 1000, 700).map((e) => ({
    ...e,
    event_id: randomUUID(),
  }));
  expect((await ingest(ingestProc.url, names.ingestToken, late)).status).toBe(202);
  await waitFor('late events stored', async () => (await countRows(ch, names.tenant)) === TOTAL + 51);
});

afterAll(async () => {
  await producer?.disconnect();
  await admin?.disconnect();
  await pool?.end();
  rmSync(dir, { recursive: true, force: true });
});

describe('an export job, run by the exporter against the real stack', () => {
  it('writes the window exactly as the list pages it, newest first, without what arrived later', async () => {
    await runJob(deps, ndjsonJob);
    const job = (await jobs.get(pool, names.tenant, ndjsonJob.jobId))!;
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const lines = fileText(ndjsonJob).trimEnd().split('\n');
    const exported = lines.map((l) => JSON.parse(l) as { event_id: string });
    expect(exported.map((e) => e.event_id)).toEqual(listed.map((e) => e.event_id));
    expect(exported).toEqual(listed);
    const bytes = readFileSync(`${dir}/${exportFileName(ndjsonJob.jobId, 'ndjson')}`);
    expect(job.manifest).toEqual({
      rowCount: listed.length,
      byteSize: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      first: { ts: Date.parse(listed[0]!.timestamp), eventId: listed[0]!.event_id },
      last: {
        ts: Date.parse(listed.at(-1)!.timestamp),
        eventId: listed.at(-1)!.event_id,
      },
      // No notary runs here: the tenant has no checkpoint to name.
      integrityTreeSize: null,
    });
    expect(job.rowsWritten).toBe(listed.length);
    expect(job.rowsExpected).toBe(listed.length);
  });

  it('writes CSV of the same rows in the documented columns, read back by a third-party reader', async () => {
    const csvJob = request('csv');
    await jobs.insert(pool, csvJob);
    await runJob(deps, csvJob);
    const records = parse(fileText(csvJob), { columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0]!)).toEqual([...CSV_COLUMNS]);
    // Accepted after the late events: they are in this job's window.
    const expected = await pageThrough(gw.get, window(csvJob), reader);
    expect(records).toEqual(
      expected.map((e) =>
        Object.fromEntries(CSV_COLUMNS.map((c) => [c, String((e as Record<string, unknown>)[c])])),
      ),
    );
  });

  it('applies the filters as the list does', async () => {
    const filtered = request('ndjson', { action: 'phi.read', success: true });
    await jobs.insert(pool, filtered);
    await runJob(deps, filtered);
    const expected = await pageThrough(gw.get, `${window(filtered)}&action=phi.read&success=true`, reader);
    const ids = fileText(filtered)
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event_id: string }).event_id);
    expect(ids).toEqual(expected.map((e) => e.event_id));
    expect(ids.length).toBeGreaterThan(0);
  });

  it('does nothing for a job that has ended, and expires a file whose lifetime is over', async () => {
    await runJob(deps, ndjsonJob);
    expect((await jobs.get(pool, names.tenant, ndjsonJob.jobId))!.attempts).toBe(1);
    const due = request('ndjson', { action: 'phi.query' });
    await jobs.insert(pool, due);
    await runJob({ ...deps, settings: { ...deps.settings, fileTtlMs: 1 } }, due);
    expect(await files.size(due.jobId, 'ndjson')).toBeGreaterThan(0);
    await waitFor('expiry', async () => (await expireDue({ ...deps, logger: deps.logger })) >= 1);
    expect((await jobs.get(pool, names.tenant, due.jobId))!.status).toBe('expired');
    expect(await files.size(due.jobId, 'ndjson')).toBeNull();
  });

  it('lets go of its job at once when the exporter stops, without counting the attempt', async () => {
    const job = request('ndjson', { action: 'phi.read' });
    await jobs.insert(pool, job);
    const take = { now: Date.now(), leaseMs: 60_000, maxAttempts: 2, perTenant: 1 };
    const claim = await jobs.claim(pool, take);
    expect(claim).toMatchObject({ attempt: 1, job: { jobId: job.jobId } });
    const stopping = new AbortController();
    const run = runClaimed(deps, claim!, stopping.signal);
    stopping.abort(new StoppingError('exporter: stopped'));
    await run;
    expect(await jobs.find(pool, job.jobId)).toMatchObject({ status: 'queued', attempts: 0 });
    expect(await files.size(job.jobId, 'ndjson')).toBeNull();
    await runJob(deps, job);
    expect(await jobs.find(pool, job.jobId)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('fails a job with a fixed message per code, the cause in the log only', async () => {
    const job = request('ndjson');
    await jobs.insert(pool, job);
    // An internal failure: ClickHouse refuses the read, naming our database and table in its exception.
    const missing = `${names.database}_missing_table`;
    await runJob({ ...deps, tables: async () => ({ ...(await deps.tables()), events: missing }) }, job);
    const failed = (await jobs.find(pool, job.jobId))!;
    expect(failed).toMatchObject({
      status: 'failed',
      error: {
        code: 'export_failed',
        message: "The export failed; the operator has the cause under the job's id.",
      },
    });
    const res = await gw.get(`/audit/exports/${job.jobId}`, await gw.mint(names.tenant, 'audit:export'));
    expect(res.status, res.text).toBe(200);
    expect(res.text).not.toContain(missing);
    expect(res.text).not.toContain('Exception');
    await waitFor('its failure in the trail', async () => {
      const events = (await pageThrough(gw.get, 'action=audit.export&limit=1000', reader)) as unknown as {
        resource_id: string;
        details: string;
      }[];
      const ended = events.find((e) => e.resource_id === job.jobId && e.details.includes('failed'));
      return ended && !ended.details.includes(missing);
    });
  });

  it('writes the audit.export event of each ended job into the tenant trail', async () => {
    await waitFor('completion events', async () => {
      const events = await pageThrough(gw.get, 'action=audit.export&limit=1000', reader);
      const ids = new Set(events.map((e) => (e as { resource_id?: string }).resource_id));
      return ids.has(ndjsonJob.jobId);
    });
  });
});
