import { setTimeout } from 'node:timers/promises';
import type { Admin } from 'kafkajs';
import type pg from 'pg';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { type Clock } from '@audit/shared/contract';
import {
  exportJobsRepository as jobs,
  type Claim,
  type ExportFiles,
  type ExportJob,
} from '@audit/shared/export-jobs';
import { integrityStore } from '@audit/shared/integrity';
import { inTransaction, loggableError, type ClickHouseClient, type Logger } from '@audit/shared/platform';
import { type LiveGeneration } from '@audit/shared/projection';
import { countWindow, planChunks, type Chunk } from '../domain/chunk-plan.js';
import { jobEndedEvent } from '../domain/job-audit-event.js';
import { type ReadTurns } from '../domain/read-turns.js';
import { writeFile } from './file.writer.js';
import { jobLease, LostJobError, type AttemptProgress } from './job-lease.js';
import { waitForProjection } from './projection-catch-up.js';
import { windowReader, windowReads, type WindowReader } from './window.reader.js';

export interface JobRunnerSettings {
  chunkRows: number;
  maxAttempts: number;
  fileTtlMs: number;
  projectionTimeoutMs: number;
  progressMs: number;
  /** The wait before attempt n + 1 is n times this. */
  retryBaseMs: number;
  /** How long after a job's acceptance its reads may begin (docs/exports.md "Window"). */
  settleMs: number;
  /** How long an attempt holds its job past its last progress ("Fair share"). */
  leaseMs: number;
}

export interface JobRunnerDeps {
  pool: pg.Pool;
  clickhouse: ClickHouseClient;
  tables: () => Promise<LiveGeneration>;
  files: ExportFiles;
  admin: Pick<Admin, 'fetchTopicOffsets' | 'fetchOffsets'>;
  /** The audit topic's generations as they stand now (docs/topic-growth.md). */
  auditTopics: () => Promise<readonly string[]>;
  projectorGroup: string;
  audit: Pick<AuditPublisher, 'publish'>;
  /** The exporter's turns at ClickHouse reads, shared by the jobs it runs ("Fair share"). */
  turns: ReadTurns;
  clock: Clock;
  settings: JobRunnerSettings;
  logger: Logger;
}

/**
 * What the API and the trail say of a failed attempt: a fixed message per code (docs/exports.md "Jobs"). The
 * cause (a ClickHouse exception, an address, a path) is the exporter's log's, under the job's id: it tells a tenant
 * nothing it can act on, and tells anyone who reads the trail how we are built.
 */
const FAILURES = {
  projection_lagging:
    'The projector did not store the audit topic in time (an operator can see its lag); ask for the job again.',
  window_changed: "The window's rows changed while they were read (a replay of the projection); ask again.",
  export_failed: "The export failed; the operator has the cause under the job's id.",
} as const;

/** A failure's `error` of the job. */
function failureOf(err: unknown): { code: keyof typeof FAILURES; message: string } {
  const name = (err as Error).name;
  const code =
    name === 'ProjectionLagError'
      ? 'projection_lagging'
      : name === 'WindowChangedError'
        ? 'window_changed'
        : 'export_failed';
  return { code, message: FAILURES[code] };
}

class WindowChangedError extends Error {
  override name = 'WindowChangedError';
}

/** The exporter stops: the attempt lets go of its job, for the next exporter to take up. */
export class StoppingError extends Error {
  override name = 'StoppingError';
}

/**
 * Runs one attempt of a job the exporter took (docs/exports.md "Jobs"): a new file from a new read of the job's
 * fixed window. A failed attempt puts the job back in the queue, to be taken again after a pause, until the
 * attempts are used up. The file is published, the job's `audit.export` event written and the job marked
 * succeeded under the job's row lock, in that order: a succeeded job always has its file and its event, and a
 * cancellation never meets a half-published job. `signal` aborts the attempt (the exporter stops): the job is
 * released at once.
 */
export async function runClaimed(deps: JobRunnerDeps, claim: Claim, signal: AbortSignal): Promise<void> {
  if ('exhausted' in claim) return failExhausted(deps, claim.exhausted);
  const { job, attempt } = claim;
  const log = deps.logger.child({ job_id: job.jobId, tenant_id: job.tenantId });
  try {
    await attemptJob(deps, job, attempt, signal);
    log.info({ attempt }, 'export job succeeded');
  } catch (err) {
    if (err instanceof LostJobError) return dropUnlessOwned(deps, job);
    if (signal.aborted) {
      await jobs.release(deps.pool, job.jobId, attempt);
      return;
    }
    const error = failureOf(err);
    const last = attempt >= deps.settings.maxAttempts;
    log.warn({ attempt, last, code: error.code, err: loggableError(err) }, 'export job attempt failed');
    if (!last) {
      await jobs.retryLater(deps.pool, job.jobId, attempt, attempt * deps.settings.retryBaseMs);
      return;
    }
    await deps.files.remove(job.jobId, job.format);
    await deps.audit.publish([jobEndedEvent(job, { success: false, error })]);
    await jobs.fail(deps.pool, job.jobId, attempt, error, deps.clock());
  }
}

/**
 * A job started as often as allowed without ending: its exporters died with it. Its event first, so a job never
 * fails without it (a failed publish leaves the job to be taken again once its lease runs out).
 */
async function failExhausted(deps: JobRunnerDeps, job: ExportJob): Promise<void> {
  const { attempts } = job;
  const error = {
    code: 'attempts_exhausted',
    message: `The job was started ${attempts} times without finishing.`,
  };
  deps.logger.warn(
    { job_id: job.jobId, tenant_id: job.tenantId, attempts },
    'export job failed: attempts used up',
  );
  await deps.files.remove(job.jobId, job.format);
  await deps.audit.publish([jobEndedEvent(job, { success: false, error })]);
  await jobs.fail(deps.pool, job.jobId, attempts, error, deps.clock());
}

/**
 * After losing the job (cancelled, or taken by another attempt): its file goes unless the job succeeded or another
 * attempt runs it (which removed what earlier attempts left when it began).
 */
async function dropUnlessOwned(deps: JobRunnerDeps, job: ExportJob): Promise<void> {
  const now = await jobs.find(deps.pool, job.jobId);
  if (now?.status === 'failed' || now?.status === 'expired') await deps.files.remove(job.jobId, job.format);
}

async function attemptJob(
  deps: JobRunnerDeps,
  job: ExportJob,
  attempt: number,
  stopping: AbortSignal,
): Promise<void> {
  const { settings } = deps;
  const progress: AttemptProgress = { rowsWritten: 0, bytesWritten: 0, rowsExpected: null };
  const lease = jobLease({
    pool: deps.pool,
    jobId: job.jobId,
    attempt,
    leaseMs: settings.leaseMs,
    everyMs: settings.progressMs,
    progress,
    logger: deps.logger,
  });
  // The attempt ends at the first of these: the exporter stops, or the job is lost.
  const halt = AbortSignal.any([stopping, lease.signal]);
  try {
    // Leftovers of earlier attempts (an exporter killed mid-file) go first: this attempt writes a new file.
    await deps.files.remove(job.jobId, job.format);
    // An event acknowledged before the job was accepted may have been stamped by ingest a little later than the
    // gateway's clock says, or be still on its way to Kafka: the topic's end is taken once that time has passed.
    await setTimeout(Math.max(0, job.acceptedAt + settings.settleMs - deps.clock()), undefined, {
      signal: halt,
    });
    await waitForProjection(
      deps.admin,
      await deps.auditTopics(),
      deps.projectorGroup,
      settings.projectionTimeoutMs,
      halt,
    );
    const reader = windowReader(deps.clickhouse, await deps.tables(), job);
    const buckets = await countWindow(reader.count, job.since, job.until, settings.chunkRows);
    const chunks = planChunks(buckets, job.since, job.until, settings.chunkRows);
    progress.rowsExpected = chunks.reduce((sum, c) => sum + c.rows, 0);
    await lease.renewNow();
    halt.throwIfAborted();
    await writeAndPublish(deps, job, attempt, { reader, chunks, progress, halt });
  } catch (err) {
    throw halt.aborted ? halt.reason : err;
  } finally {
    await lease.end();
  }
}

/** The window's file written from its chunks, checked against their count, then published with its event. */
async function writeAndPublish(
  deps: JobRunnerDeps,
  job: ExportJob,
  attempt: number,
  o: { reader: WindowReader; chunks: Chunk[]; progress: AttemptProgress; halt: AbortSignal },
): Promise<void> {
  const upload = await deps.files.create(job.jobId, job.format, attempt);
  const stop = () => upload.stream.destroy(o.halt.reason as Error);
  o.halt.addEventListener('abort', stop, { once: true });
  // Each chunk's read waits for the tenant's turn at this exporter's reads ("Fair share").
  const take = () => deps.turns.take(job.tenantId);
  try {
    const written = await writeFile(
      job.format,
      {
        rows: () => windowReads(o.reader.rows, o.chunks, take),
        rowBinary: () => windowReads(o.reader.rowBinary, o.chunks, take),
      },
      upload.stream,
      o.progress,
    );
    o.halt.throwIfAborted();
    // The count and the read agree unless the window's rows changed in between (a replay of the projection).
    if (written.rowCount !== o.progress.rowsExpected) {
      throw new WindowChangedError(
        `read ${written.rowCount} rows where ${o.progress.rowsExpected} were counted`,
      );
    }
    // The checkpoint an auditor checks the file against (docs/integrity.md "Offline verification"): the latest
    // made by the job's acceptance, so that every event it covers was ingested by then (and so is in the file),
    // and was projected before the reads began, which waited for the topic's end after the acceptance.
    const checkpoint = await integrityStore(deps.pool).checkpointMadeBy(job.tenantId, job.acceptedAt);
    const manifest = { ...written, integrityTreeSize: checkpoint?.tree_size ?? null };
    const now = deps.clock();
    await inTransaction(deps.pool, async (db) => {
      if (!(await jobs.lockOwned(db, job.jobId, attempt))) throw new LostJobError();
      await upload.publish();
      await deps.audit.publish([jobEndedEvent(job, { success: true, manifest })]);
      await jobs.succeed(db, job.jobId, attempt, manifest, now, now + deps.settings.fileTtlMs);
    });
  } catch (err) {
    await upload.discard();
    throw err;
  } finally {
    o.halt.removeEventListener('abort', stop);
  }
}
