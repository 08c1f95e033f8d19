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
const LEASE = 60_000;

/** An exporter's take of the next job. */
const take = (maxAttempts = 5, perTenant = 1) =>
  jobs.claim(pool, { now: 1_763_719_300_000, leaseMs: LEASE, maxAttempts, perTenant });

/** Every running attempt's exporter given up for lost. */
const expireLeases = () =>
  pool.query(`UPDATE export_jobs SET lease_until = now() - interval '1 second' WHERE status = 'running'`);

describe('export jobs in Postgres (real Postgres)', () => {
  it("fences attempts: a job taken over after its lease ran out is no longer the first attempt's", async () => {
    const job = request();
    await jobs.insert(pool, job);
    expect(await take()).toMatchObject({ attempt: 1, job: { jobId: job.jobId, status: 'running' } });
    // Held: nobody else takes it while its lease runs.
    expect(await take()).toBeNull();
    await expireLeases();
    // Another exporter takes the job over (its first attempt's exporter was given up for lost).
    expect(await take()).toMatchObject({ attempt: 2, job: { jobId: job.jobId } });
    expect(await jobs.progress(pool, job.jobId, 1, progress, LEASE)).toBe(false);
    expect(await jobs.progress(pool, job.jobId, 2, progress, LEASE)).toBe(true);
    expect(await jobs.retryLater(pool, job.jobId, 1, 0)).toBe(false);
    expect(await jobs.release(pool, job.jobId, 1)).toBe(false);
    expect(await inTransaction(pool, (db) => jobs.lockOwned(db, job.jobId, 1))).toBe(false);
    expect(await inTransaction(pool, (db) => jobs.lockOwned(db, job.jobId, 2))).toBe(true);
    const manifest = { rowCount: 1, byteSize: 1, sha256: 'ab'.repeat(32), first: null, last: null };
    expect(await jobs.succeed(pool, job.jobId, 1, manifest, 4, 5)).toBe(false);
    expect(await jobs.succeed(pool, job.jobId, 2, manifest, 4, 5)).toBe(true);
    await expireLeases();
    expect(await take()).toBeNull();
    expect((await jobs.get(pool, names.tenant, job.jobId))!.manifest).toEqual(manifest);
    expect(await jobs.get(pool, `${names.tenant}-other`, job.jobId)).toBeNull();
  });

  it('puts a failed attempt back in the queue after its pause, and a released one at once without counting it', async () => {
    const job = request();
    await jobs.insert(pool, job);
    expect(await take()).toMatchObject({ attempt: 1 });
    expect(await jobs.retryLater(pool, job.jobId, 1, 60_000)).toBe(true);
    expect((await jobs.find(pool, job.jobId))!.status).toBe('queued');
    expect(await take()).toBeNull();
    await pool.query(`UPDATE export_jobs SET not_before = now() WHERE id = $1`, [job.jobId]);
    expect(await take()).toMatchObject({ attempt: 2 });
    expect(await jobs.release(pool, job.jobId, 2)).toBe(true);
    expect(await take()).toMatchObject({ attempt: 2 });
    await jobs.fail(pool, job.jobId, 2, { code: 'export_failed', message: 'x' }, 4);
  });

  it('leaves a job started as often as allowed for its taker to fail, and a cancellation ends a running one', async () => {
    const job = request();
    await jobs.insert(pool, job);
    await take(2);
    await expireLeases();
    await take(2);
    await expireLeases();
    const exhausted = await take(2);
    expect(exhausted).toMatchObject({ exhausted: { attempts: 2, status: 'running' } });
    // Held by its taker while it writes the job's event.
    expect(await take(2)).toBeNull();
    const error = { code: 'attempts_exhausted', message: 'x' };
    expect(await jobs.fail(pool, job.jobId, 2, error, 4)).toBe(true);
    await expireLeases();
    expect(await take(2)).toBeNull();
    expect(await jobs.find(pool, job.jobId)).toMatchObject({ status: 'failed', error });

    const running = request();
    await jobs.insert(pool, running);
    await take();
    expect(await jobs.cancel(pool, running.jobId, 2, 'operator:test')).toMatchObject({
      status: 'failed',
      error: { code: 'cancelled' },
    });
    expect(await jobs.progress(pool, running.jobId, 1, progress, LEASE)).toBe(false);
    expect(await jobs.cancel(pool, running.jobId, 3, 'operator:test')).toBeNull();
  });

  it('takes the job of the tenant with the fewest running first, and none of a tenant at its cap', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((t) => `${names.tenant}-fair-${t}`);
    // A asked first, for three; B and C later, for one each.
    const aJobs = [1, 2, 3].map((i) => request(1_800_000_100_000 + i, a!));
    const bJob = request(1_800_000_100_010, b!);
    const cJob = request(1_800_000_100_020, c!);
    for (const job of [...aJobs, bJob, cJob]) await jobs.insert(pool, job);
    const order: string[] = [];
    for (;;) {
      const claim = await take(5, 2);
      if (!claim || !('job' in claim)) break;
      order.push(claim.job.jobId);
    }
    // One each by acceptance among those with none running, then A's second; A's third waits for its cap.
    expect(order).toEqual([aJobs[0]!, bJob, cJob, aJobs[1]!].map((j) => j.jobId));
    expect((await jobs.find(pool, aJobs[2]!.jobId))!.status).toBe('queued');
    await jobs.fail(pool, aJobs[0]!.jobId, 1, { code: 'export_failed', message: 'x' }, 4);
    expect(await take(5, 2)).toMatchObject({ job: { jobId: aJobs[2]!.jobId } });
    for (const job of [aJobs[1]!, aJobs[2]!, bJob, cJob])
      await jobs.cancel(pool, job.jobId, 5, 'operator:test');
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
