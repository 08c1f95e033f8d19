import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEventCodec, topics, type AuditEventRecord } from '@audit/shared/contract';
import { exportJobsRepository as jobs, type ExportJobRequest } from '@audit/shared/export-jobs';
import { uniqueNames } from '../support/names.js';
import { freshPostgres } from '../support/postgres.js';
import { opsCli } from '../support/ops-cli.js';
import { dropTestBucket, objectKeys, s3StorageEnv, s3TestSettings, testBucket } from '../support/s3.js';
import { cleanUp, testKafka } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

const names = uniqueNames('opsexports');
const auditTopic = topics(names.topicPrefix, 1).auditEvents.name;
let postgres: Awaited<ReturnType<typeof freshPostgres>>;
let pool: pg.Pool;
const events: AuditEventRecord[] = [];
const consumer = testKafka().consumer({ groupId: `${names.groupId}-reader` });
const run = opsCli(names, () => postgres.url);
const ops = (...argv: string[]) => run(argv);

const request = (tenantId: string, acceptedAt: number): ExportJobRequest => ({
  jobId: randomUUID(),
  tenantId,
  format: 'csv',
  filters: { since: 0 },
  since: 0,
  until: acceptedAt,
  acceptedAt,
  requestedBy: 'ab12cd34',
});

const queued = request(names.tenant, 1_700_000_000_000);
const other = request(`${names.tenant}-b`, 1_700_000_001_000);
const ended = request(names.tenant, 1_700_000_002_000);

beforeAll(async () => {
  postgres = await freshPostgres(names);
  expect((await ops('migrate')).code).toBe(0);
  pool = new pg.Pool({ connectionString: postgres.url });
  // The ended job alone in the queue when an exporter takes one.
  await jobs.insert(pool, ended);
  const start = await jobs.claim(pool, { now: Date.now(), leaseMs: 60_000, maxAttempts: 5, perTenant: 1 });
  expect(start).toMatchObject({ attempt: 1, job: { jobId: ended.jobId } });
  for (const job of [queued, other]) await jobs.insert(pool, job);
  await jobs.fail(pool, ended.jobId, 1, { code: 'export_failed', message: 'x' }, Date.now());
  const codec = auditEventCodec();
  await consumer.connect();
  await consumer.subscribe({ topic: auditTopic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void events.push(codec.decode(message.value!)) });
});

afterAll(async () => {
  await consumer.disconnect();
  await pool.end();
  await postgres.drop();
  await dropTestBucket(names);
  await cleanUp(names);
});

describe('ops migrate and the export store', () => {
  it('makes the S3 bucket when it is missing, and finds it made when run again', async () => {
    await expect(objectKeys(s3TestSettings(names))).rejects.toThrow();
    for (let i = 0; i < 2; i++) {
      const res = await run(['migrate', '--json'], s3StorageEnv(names));
      expect(res.code, res.err).toBe(0);
      expect(res.json().exportStorage).toContain(`s3 bucket ${testBucket(names)}`);
    }
    expect(await objectKeys(s3TestSettings(names))).toEqual([]);
  });
});

describe('ops exports', () => {
  it('list: every tenant newest first, or one tenant, or one status', async () => {
    const all = await ops('exports', 'list', '--json');
    expect(all.code).toBe(0);
    expect(all.json<{ jobId: string }[]>().map((j) => j.jobId)).toEqual([
      ended.jobId,
      other.jobId,
      queued.jobId,
    ]);
    const mine = (
      await ops('exports', 'list', '--tenant', names.tenant, '--status', 'queued', '--json')
    ).json<{ jobId: string; acceptedAt: string }[]>();
    expect(mine).toMatchObject([{ jobId: queued.jobId, acceptedAt: '2023-11-14T22:13:20.000+00:00' }]);
    expect((await ops('exports', 'list')).out).toContain(`${other.jobId}  ${other.tenantId}  csv  queued`);
  });

  it('show: one job; usage errors before anything connects', async () => {
    const shown = await ops('exports', 'show', '--id', ended.jobId.toUpperCase(), '--json');
    expect(shown.json()).toMatchObject({
      jobId: ended.jobId,
      status: 'failed',
      error: { code: 'export_failed' },
    });
    expect((await ops('exports', 'show', '--id', randomUUID())).code).toBe(1);
    for (const argv of [
      ['exports', 'show', '--id', 'not-a-uuid'],
      ['exports', 'list', '--status', 'done'],
      ['exports', 'list', '--id', queued.jobId],
      ['exports', 'drop'],
    ]) {
      expect((await run(argv, { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' })).code).toBe(2);
    }
  });

  it('cancel: fails a queued job as cancelled with its admin event, and leaves an ended one as it is', async () => {
    const res = await ops('exports', 'cancel', '--id', queued.jobId, '--json');
    expect(res.code).toBe(0);
    expect(res.json()).toMatchObject({
      changed: true,
      status: 'failed',
      error: { code: 'cancelled', message: 'Cancelled by operator operator:test.' },
    });
    await waitFor('admin.export.cancel', async () =>
      events.find((e) => e.action === 'admin.export.cancel' && e.resource_id === queued.jobId),
    );
    const again = await ops('exports', 'cancel', '--id', ended.jobId);
    expect(again.out).toBe(`${ended.jobId} had already ended: failed`);
    expect((await jobs.find(pool, ended.jobId))!.error!.code).toBe('export_failed');
  });
});
