import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJobsRepository as jobs, type ExportJobRequest } from '@audit/shared/export-jobs';
import { migratePostgres } from '@audit/shared/migrations';
import { inTransaction } from '@audit/shared/platform';
import { uniqueNames } from '../support/names.js';
import { freshPostgres } from '../support/postgres.js';

const names = uniqueNames('expjobrepo');
let postgres: Awaited<ReturnType<typeof freshPostgres>>;
let pool: pg.Pool;

const request = (acceptedAt = 1_763_719_200_123, tenantId = names.tenant): ExportJobRequest => ({
  jobId: randomUUID(),
  tenantId,
  format: 'ndjson',
  filters: { action: 'phi.read', since: 0 },
  since: 0,
  until: acceptedAt,
  acceptedAt,
  requestedBy: 'ab12cd34',
});

beforeAll(async () => {
  postgres = await freshPostgres(names);
  await migratePostgres(postgres.url);
  pool = new pg.Pool({ connectionString: postgres.url });
});

afterAll(async () => {
  await pool.end();
  await postgres.drop();
});

const progress = { rowsWritten: 1, bytesWritten: 1, rowsExpected: 1 };

describe('export jobs in Postgres (real Postgres)', () => {
  it('fences attempts: a retry never takes the job from a newer attempt, and a lost attempt changes nothing', async () => {
    const job = request();
    await jobs.insert(pool, job);
    expect(await jobs.start(pool, job.jobId, 1, 5)).toMatchObject({ attempt: 1 });
    // Another exporter takes the job over (its first attempt's exporter was given up for lost).
    expect(await jobs.start(pool, job.jobId, 2, 5)).toMatchObject({ attempt: 2 });
    // The first exporter's retry of its own attempt finds the job taken.
    expect(await jobs.start(pool, job.jobId, 3, 5, 1)).toMatchObject({
      ended: { attempts: 2, status: 'running' },
    });
    expect(await jobs.progress(pool, job.jobId, 1, progress)).toBe(false);
    expect(await jobs.progress(pool, job.jobId, 2, progress)).toBe(true);
    expect(await inTransaction(pool, (db) => jobs.lockOwned(db, job.jobId, 1))).toBe(false);
    expect(await inTransaction(pool, (db) => jobs.lockOwned(db, job.jobId, 2))).toBe(true);
    const manifest = { rowCount: 1, byteSize: 1, sha256: 'ab'.repeat(32), first: null, last: null };
    expect(await jobs.succeed(pool, job.jobId, 1, manifest, 4, 5)).toBe(false);
    expect(await jobs.succeed(pool, job.jobId, 2, manifest, 4, 5)).toBe(true);
    expect(await jobs.start(pool, job.jobId, 6, 5)).toMatchObject({ ended: { status: 'succeeded' } });
    expect((await jobs.get(pool, names.tenant, job.jobId))!.manifest).toEqual(manifest);
    expect(await jobs.get(pool, `${names.tenant}-other`, job.jobId)).toBeNull();
  });

  it('leaves a job started as often as allowed for its caller to fail, and a cancellation ends a running one', async () => {
    const job = request();
    await jobs.insert(pool, job);
    await jobs.start(pool, job.jobId, 1, 2);
    await jobs.start(pool, job.jobId, 2, 2);
    const exhausted = await jobs.start(pool, job.jobId, 3, 2);
    expect(exhausted).toMatchObject({ exhausted: { attempts: 2, status: 'running' } });
    const error = { code: 'attempts_exhausted', message: 'x' };
    expect(await jobs.fail(pool, job.jobId, 2, error, 4)).toBe(true);
    expect(await jobs.start(pool, job.jobId, 5, 2)).toMatchObject({ ended: { status: 'failed', error } });

    const running = request();
    await jobs.insert(pool, running);
    await jobs.start(pool, running.jobId, 1, 5);
    expect(await jobs.cancel(pool, running.jobId, 2, 'operator:test')).toMatchObject({
      status: 'failed',
      error: { code: 'cancelled' },
    });
    expect(await jobs.progress(pool, running.jobId, 1, progress)).toBe(false);
    expect(await jobs.cancel(pool, running.jobId, 3, 'operator:test')).toBeNull();
  });

  it('pages the tenant jobs newest first by acceptance time and id, keeping every millisecond', async () => {
    const tenant = `${names.tenant}-paged`;
    const same = [1_800_000_000_001, 1_800_000_000_001, 1_800_000_000_002].map((at) => request(at, tenant));
    for (const job of same) await jobs.insert(pool, job);
    const order = [...same].sort((a, b) => b.acceptedAt - a.acceptedAt || b.jobId.localeCompare(a.jobId));
    const first = await jobs.list(pool, tenant, null, 2);
    const last = first.at(-1)!;
    const rest = await jobs.list(pool, tenant, { acceptedAt: last.acceptedAt, jobId: last.jobId }, 2);
    expect([...first, ...rest].map((j) => j.jobId)).toEqual(order.map((j) => j.jobId));
    expect(first[0]!.acceptedAt).toBe(1_800_000_000_002);
  });
});
