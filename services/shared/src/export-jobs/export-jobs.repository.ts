import type pg from 'pg';
import { z } from 'zod';
import { lockTable } from '../platform/postgres/tenant-lock.js';
import { inTransaction } from '../platform/postgres/transaction.js';
import type { EventFilters } from '../projection/event-filters.js';
import {
  EXPORT_JOB_FORMATS,
  EXPORT_JOB_STATUSES,
  exportManifestSchema,
  type ExportJob,
  type ExportJobRequest,
  type ExportJobStatus,
  type ExportManifest,
} from './export-job.js';

type Queryable = Pick<pg.ClientBase, 'query'>;

const COLUMNS = `id, tenant_id, format, filters, since_ms, until_ms, accepted_at, requested_by, status, attempts,
  started_at, finished_at, rows_written, bytes_written, rows_expected, manifest, error_code, error_message, expires_at`;

// The columns of `export_jobs j`, where another relation of the statement has some of the same names.
const JOB_COLUMNS = COLUMNS.replace(/\w+/g, 'j.$&');

const ms = (d: Date | null) => (d === null ? null : d.getTime());

// A row as pg returns it: bigint columns as strings, jsonb parsed, timestamptz as Date. Stored JSON is checked.
const rowSchema = z.object({
  id: z.string(),
  tenant_id: z.string(),
  format: z.enum(EXPORT_JOB_FORMATS),
  filters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  since_ms: z.coerce.number(),
  until_ms: z.coerce.number(),
  accepted_at: z.date(),
  requested_by: z.string(),
  status: z.enum(EXPORT_JOB_STATUSES),
  attempts: z.number(),
  started_at: z.date().nullable(),
  finished_at: z.date().nullable(),
  rows_written: z.coerce.number(),
  bytes_written: z.coerce.number(),
  rows_expected: z.coerce.number().nullable(),
  manifest: exportManifestSchema.nullable(),
  error_code: z.string().nullable(),
  error_message: z.string().nullable(),
  expires_at: z.date().nullable(),
});

function toJob(row: unknown): ExportJob {
  const r = rowSchema.parse(row);
  return {
    jobId: r.id,
    tenantId: r.tenant_id,
    format: r.format,
    filters: r.filters as EventFilters,
    since: r.since_ms,
    until: r.until_ms,
    acceptedAt: r.accepted_at.getTime(),
    requestedBy: r.requested_by,
    status: r.status,
    attempts: r.attempts,
    startedAt: ms(r.started_at),
    finishedAt: ms(r.finished_at),
    rowsWritten: r.rows_written,
    bytesWritten: r.bytes_written,
    rowsExpected: r.rows_expected,
    manifest: r.manifest,
    error: r.error_code === null ? null : { code: r.error_code, message: r.error_message ?? '' },
    expiresAt: ms(r.expires_at),
  };
}

async function findJob(db: Queryable, jobId: string): Promise<ExportJob | null> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM export_jobs WHERE id = $1`, [jobId]);
  return rows[0] ? toJob(rows[0]) : null;
}

/** A job an exporter took (see `claim`): its new attempt, or one already started as often as allowed. */
export type Claim = { attempt: number; job: ExportJob } | { exhausted: ExportJob };

/** Postgres access for export jobs (docs/exports.md "Jobs"). */
export const exportJobsRepository = {
  async countInFlight(db: Queryable, tenantId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM export_jobs WHERE tenant_id = $1 AND status IN ('queued', 'running')`,
      [tenantId],
    );
    return rows[0]!.n;
  },

  async insert(db: Queryable, job: ExportJobRequest): Promise<void> {
    await db.query(
      `INSERT INTO export_jobs (id, tenant_id, format, filters, since_ms, until_ms, accepted_at, requested_by)
       VALUES ($1, $2, $3, $4, $5, $6, to_timestamp($7::double precision / 1000), $8)`,
      [
        job.jobId,
        job.tenantId,
        job.format,
        JSON.stringify(job.filters),
        job.since,
        job.until,
        job.acceptedAt,
        job.requestedBy,
      ],
    );
  },

  /** The tenant's job, or null: another tenant's job is as absent as one that never existed. */
  async get(db: Queryable, tenantId: string, jobId: string): Promise<ExportJob | null> {
    const { rows } = await db.query(`SELECT ${COLUMNS} FROM export_jobs WHERE id = $1 AND tenant_id = $2`, [
      jobId,
      tenantId,
    ]);
    return rows[0] ? toJob(rows[0]) : null;
  },

  /** Up to `limit` of the tenant's jobs, newest first, after `after` in that order. */
  async list(
    db: Queryable,
    tenantId: string,
    after: { acceptedAt: number; jobId: string } | null,
    limit: number,
  ): Promise<ExportJob[]> {
    const { rows } = after
      ? await db.query(
          `SELECT ${COLUMNS} FROM export_jobs WHERE tenant_id = $1
             AND (accepted_at, id) < (to_timestamp($2::double precision / 1000), $3::uuid)
           ORDER BY accepted_at DESC, id DESC LIMIT $4`,
          [tenantId, after.acceptedAt, after.jobId, limit],
        )
      : await db.query(
          `SELECT ${COLUMNS} FROM export_jobs WHERE tenant_id = $1 ORDER BY accepted_at DESC, id DESC LIMIT $2`,
          [tenantId, limit],
        );
    return rows.map(toJob);
  },

  /**
   * Takes the next job an exporter may run (docs/exports.md "Fair share"), holding it for `leaseMs`: a queued job
   * whose wait is over, or a running one whose lease ran out (its exporter gone). Tenants with the fewest jobs
   * running go first, each tenant's oldest job first; a tenant with `perTenant` running waits. A job already
   * started `maxAttempts` times is `exhausted`: held, but left as it is, for its taker to fail once its audit
   * event is written. Null when nothing may be taken. Takes are serialized, so the cap per tenant is exact.
   */
  async claim(
    pool: pg.Pool,
    o: { now: number; leaseMs: number; maxAttempts: number; perTenant: number },
  ): Promise<Claim | null> {
    const row = await inTransaction(pool, async (db) => {
      await lockTable(db, 'exportJobQueue');
      const { rows } = await db.query<Record<string, unknown> & { attempts_before: number }>(
        `WITH running AS (
           SELECT tenant_id, count(*) AS n FROM export_jobs
           WHERE status = 'running' AND lease_until >= now() GROUP BY tenant_id
         ), next AS (
           SELECT c.id, c.attempts AS attempts_before FROM export_jobs c LEFT JOIN running r USING (tenant_id)
           WHERE ((c.status = 'queued' AND coalesce(c.not_before <= now(), true))
               OR (c.status = 'running' AND coalesce(c.lease_until < now(), true)))
             AND coalesce(r.n, 0) < $4
           ORDER BY coalesce(r.n, 0), c.accepted_at, c.id LIMIT 1
         )
         UPDATE export_jobs j SET status = 'running', not_before = NULL,
           lease_until = now() + make_interval(secs => $2::float8 / 1000),
           attempts = CASE WHEN next.attempts_before < $3 THEN j.attempts + 1 ELSE j.attempts END,
           started_at = CASE WHEN next.attempts_before < $3 THEN to_timestamp($1::double precision / 1000)
                             ELSE j.started_at END,
           rows_written = 0, bytes_written = 0, rows_expected = NULL
         FROM next WHERE j.id = next.id
         RETURNING ${JOB_COLUMNS}, next.attempts_before`,
        [o.now, o.leaseMs, o.maxAttempts, o.perTenant],
      );
      return rows[0];
    });
    if (!row) return null;
    const job = toJob(row);
    return row.attempts_before < o.maxAttempts ? { attempt: job.attempts, job } : { exhausted: job };
  },

  /**
   * Lets go of the attempt's job at once, as if it had never begun (its exporter stops on purpose): the next
   * exporter to look takes it up. False when the attempt no longer owned it.
   */
  async release(db: Queryable, jobId: string, attempt: number): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE export_jobs SET status = 'queued', attempts = attempts - 1, lease_until = NULL
       WHERE id = $1 AND attempts = $2 AND status = 'running'`,
      [jobId, attempt],
    );
    return rowCount === 1;
  },

  /** Puts the failed attempt's job back in the queue, to be taken again after `delayMs`. */
  async retryLater(db: Queryable, jobId: string, attempt: number, delayMs: number): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE export_jobs SET status = 'queued', lease_until = NULL,
         not_before = now() + make_interval(secs => $3::float8 / 1000)
       WHERE id = $1 AND attempts = $2 AND status = 'running'`,
      [jobId, attempt, delayMs],
    );
    return rowCount === 1;
  },

  /**
   * Records the attempt's progress and holds its job for another `leaseMs`; false once the attempt no longer
   * owns the job.
   */
  async progress(
    db: Queryable,
    jobId: string,
    attempt: number,
    p: { rowsWritten: number; bytesWritten: number; rowsExpected: number | null },
    leaseMs: number,
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE export_jobs SET rows_written = $3, bytes_written = $4, rows_expected = $5,
         lease_until = now() + make_interval(secs => $6::float8 / 1000)
       WHERE id = $1 AND attempts = $2 AND status = 'running'`,
      [jobId, attempt, p.rowsWritten, p.bytesWritten, p.rowsExpected, leaseMs],
    );
    return rowCount === 1;
  },

  /**
   * Whether the attempt still owns the running job, holding its row until the transaction ends: a cancellation or
   * another attempt then waits for the attempt to finish what it does under the lock.
   */
  async lockOwned(db: Queryable, jobId: string, attempt: number): Promise<boolean> {
    const { rowCount } = await db.query(
      `SELECT 1 FROM export_jobs WHERE id = $1 AND attempts = $2 AND status = 'running' FOR UPDATE`,
      [jobId, attempt],
    );
    return rowCount === 1;
  },

  /** Ends the attempt's job as succeeded with its published file; false once the attempt no longer owns it. */
  async succeed(
    db: Queryable,
    jobId: string,
    attempt: number,
    manifest: ExportManifest,
    now: number,
    expiresAt: number,
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE export_jobs SET status = 'succeeded', manifest = $3, rows_written = $4, bytes_written = $5,
         finished_at = to_timestamp($6::double precision / 1000), expires_at = to_timestamp($7::double precision / 1000)
       WHERE id = $1 AND attempts = $2 AND status = 'running'`,
      [jobId, attempt, JSON.stringify(manifest), manifest.rowCount, manifest.byteSize, now, expiresAt],
    );
    return rowCount === 1;
  },

  /** Ends the attempt's job as failed; false once the attempt no longer owns it. */
  async fail(
    db: Queryable,
    jobId: string,
    attempt: number,
    error: { code: string; message: string },
    now: number,
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE export_jobs SET status = 'failed', error_code = $3, error_message = $4,
         finished_at = to_timestamp($5::double precision / 1000)
       WHERE id = $1 AND attempts = $2 AND status = 'running'`,
      [jobId, attempt, error.code, error.message, now],
    );
    return rowCount === 1;
  },

  /** Any tenant's job, for operators and the exporter. */
  find: findJob,

  /** Up to `limit` jobs, newest first, of one tenant or all, in one status or any: for operators. */
  async search(
    db: Queryable,
    where: { tenantId?: string; status?: ExportJobStatus },
    limit: number,
  ): Promise<ExportJob[]> {
    const { rows } = await db.query(
      `SELECT ${COLUMNS} FROM export_jobs
       WHERE ($1::text IS NULL OR tenant_id = $1) AND ($2::text IS NULL OR status = $2)
       ORDER BY accepted_at DESC, id DESC LIMIT $3`,
      [where.tenantId ?? null, where.status ?? null, limit],
    );
    return rows.map(toJob);
  },

  /**
   * Ends a queued or running job as failed (`cancelled`); its running attempt finds out at its next progress
   * report and drops its file. The job, or null when it had already ended (or does not exist).
   */
  async cancel(db: Queryable, jobId: string, now: number, by: string): Promise<ExportJob | null> {
    const { rows } = await db.query(
      `UPDATE export_jobs SET status = 'failed', error_code = 'cancelled', error_message = $3,
         finished_at = to_timestamp($2::double precision / 1000)
       WHERE id = $1 AND status IN ('queued', 'running')
       RETURNING ${COLUMNS}`,
      [jobId, now, `Cancelled by operator ${by}.`],
    );
    return rows[0] ? toJob(rows[0]) : null;
  },

  /** Succeeded jobs whose files' lifetime ended by `now`, oldest first. */
  async dueForExpiry(db: Queryable, now: number, limit: number): Promise<ExportJob[]> {
    const { rows } = await db.query(
      `SELECT ${COLUMNS} FROM export_jobs WHERE status = 'succeeded'
         AND expires_at <= to_timestamp($1::double precision / 1000)
       ORDER BY expires_at LIMIT $2`,
      [now, limit],
    );
    return rows.map(toJob);
  },

  /**
   * The tenant's succeeded jobs whose window begins before `before`: their files may hold events a retention purge
   * removes (docs/retention.md "The purge"). Only what finds a file: the custodian's role reads no job's filters.
   */
  async succeededBefore(
    db: Queryable,
    tenantId: string,
    before: number,
  ): Promise<Pick<ExportJob, 'jobId' | 'format'>[]> {
    const { rows } = await db.query<{ id: string; format: ExportJob['format'] }>(
      `SELECT id, format FROM export_jobs WHERE tenant_id = $1 AND status = 'succeeded' AND since_ms < $2
       ORDER BY accepted_at, id`,
      [tenantId, before],
    );
    return rows.map((r) => ({ jobId: r.id, format: r.format }));
  },

  /** Marks a succeeded job expired, once its file is gone. */
  async expire(db: Queryable, jobId: string): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE export_jobs SET status = 'expired' WHERE id = $1 AND status = 'succeeded'`,
      [jobId],
    );
    return rowCount === 1;
  },
};
