import type { Admin } from 'kafkajs';
import type pg from 'pg';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { type Clock } from '@audit/shared/contract';
import {
  exportJobsRepository as jobs,
  type ExportFiles,
  type ExportJobRequest,
} from '@audit/shared/export-jobs';
import { integrityStore } from '@audit/shared/integrity';
import {
  inTransaction,
  loggableError,
  sleep,
  type ClickHouseClient,
  type Logger,
} from '@audit/shared/platform';
import { type LiveGeneration } from '@audit/shared/projection';
import { countWindow, planChunks } from '../domain/chunk-plan.js';
import { jobEndedEvent } from '../domain/job-audit-event.js';
import { writeFile, type WriteProgress } from './file.writer.js';
import { waitForProjection } from './projection-catch-up.js';
import { windowReader, windowReads } from './window.reader.js';

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
  clock: Clock;
  settings: JobRunnerSettings;
  logger: Logger;
}

/** The job was taken over by a newer attempt (another exporter): this one stops without changing it. */
class LostJobError extends Error {
  override name = 'LostJobError';
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

/**
 * Runs the job until it ends (docs/exports.md "Jobs"): attempt after attempt, each a new file from a new read of
 * the same fixed window, until one is published whole or the attempts are used up. Returns at once for a job that
 * has already ended. The file is published, the job's `audit.export` event written and the job marked succeeded
 * under the job's row lock, in that order: a succeeded job always has its file and its event, and a cancellation
 * never meets a half-published job.
 */
export async function runJob(deps: JobRunnerDeps, request: ExportJobRequest): Promise<void> {
  const log = deps.logger.child({ job_id: request.jobId, tenant_id: request.tenantId });
  let after: number | undefined;
  for (;;) {
    const start = await jobs.start(deps.pool, request.jobId, deps.clock(), deps.settings.maxAttempts, after);
    if ('ended' in start) return;
    if ('exhausted' in start) {
      // Started this often without ending: its exporters died with it. Its event first, so a job never fails
      // without it (a failed publish leaves the request to be read again).
      const { attempts } = start.exhausted;
      const error = {
        code: 'attempts_exhausted',
        message: `The job was started ${attempts} times without finishing.`,
      };
      log.warn({ attempts }, 'export job failed: attempts used up');
      await deps.files.remove(request.jobId, request.format);
      await deps.audit.publish([jobEndedEvent(request, { success: false, error })]);
      await jobs.fail(deps.pool, request.jobId, attempts, error, deps.clock());
      return;
    }
    const { attempt } = start;
    try {
      await attemptJob(deps, request, attempt);
      log.info({ attempt }, 'export job succeeded');
      return;
    } catch (err) {
      if (err instanceof LostJobError) return dropUnlessOwned(deps, request);
      const error = failureOf(err);
      const last = attempt >= deps.settings.maxAttempts;
      log.warn({ attempt, last, code: error.code, err: loggableError(err) }, 'export job attempt failed');
      if (last) {
        await deps.files.remove(request.jobId, request.format);
        await deps.audit.publish([jobEndedEvent(request, { success: false, error })]);
        await jobs.fail(deps.pool, request.jobId, attempt, error, deps.clock());
        return;
      }
      await sleep(attempt * deps.settings.retryBaseMs);
      after = attempt;
    }
  }
}

/**
 * After losing the job (cancelled, or taken by another attempt): its file goes unless the job succeeded or another
 * attempt runs it (which removed what earlier attempts left when it began).
 */
async function dropUnlessOwned(deps: JobRunnerDeps, request: ExportJobRequest): Promise<void> {
  const job = await jobs.find(deps.pool, request.jobId);
  if (job?.status === 'failed' || job?.status === 'expired')
    await deps.files.remove(request.jobId, request.format);
}

async function attemptJob(deps: JobRunnerDeps, request: ExportJobRequest, attempt: number): Promise<void> {
  const { settings } = deps;
  // Leftovers of earlier attempts (an exporter killed mid-file) go first: this attempt writes a new file.
  await deps.files.remove(request.jobId, request.format);
  // An event acknowledged before the job was accepted may have been stamped by ingest a little later than the
  // gateway's clock says, or be still on its way to Kafka: the topic's end is taken once that time has passed.
  await sleep(Math.max(0, request.acceptedAt + settings.settleMs - deps.clock()));
  await waitForProjection(
    deps.admin,
    await deps.auditTopics(),
    deps.projectorGroup,
    settings.projectionTimeoutMs,
  );
  const reader = windowReader(deps.clickhouse, await deps.tables(), request);
  const buckets = await countWindow(reader.count, request.since, request.until, settings.chunkRows);
  const chunks = planChunks(buckets, request.since, request.until, settings.chunkRows);
  const rowsExpected = chunks.reduce((sum, c) => sum + c.rows, 0);
  const progress: WriteProgress = { rowsWritten: 0, bytesWritten: 0 };
  const report = async () => {
    if (!(await jobs.progress(deps.pool, request.jobId, attempt, { ...progress, rowsExpected }))) {
      throw new LostJobError();
    }
  };
  await report();
  const upload = await deps.files.create(request.jobId, request.format, attempt);
  // A report that finds the job lost stops the file; one that comes after the last byte is kept for below.
  let lost: unknown = null;
  let reporting = Promise.resolve();
  const timer = setInterval(() => {
    reporting = reporting.then(report).catch((err: unknown) => {
      lost = err;
      upload.stream.destroy(err as Error);
    });
  }, settings.progressMs);
  try {
    const written = await writeFile(
      request.format,
      {
        rows: () => windowReads(reader.rows, chunks),
        rowBinary: () => windowReads(reader.rowBinary, chunks),
      },
      upload.stream,
      progress,
    );
    clearInterval(timer);
    await reporting;
    if (lost) throw lost;
    // The count and the read agree unless the window's rows changed in between (a replay of the projection).
    if (written.rowCount !== rowsExpected) {
      throw new WindowChangedError(`read ${written.rowCount} rows where ${rowsExpected} were counted`);
    }
    // The checkpoint an auditor checks the file against (docs/integrity.md "Offline verification"): the latest
    // made by the job's acceptance, so that every event it covers was ingested by then (and so is in the file),
    // and was projected before the reads began, which waited for the topic's end after the acceptance.
    const checkpoint = await integrityStore(deps.pool).checkpointMadeBy(request.tenantId, request.acceptedAt);
    const manifest = { ...written, integrityTreeSize: checkpoint?.tree_size ?? null };
    const now = deps.clock();
    await inTransaction(deps.pool, async (db) => {
      if (!(await jobs.lockOwned(db, request.jobId, attempt))) throw new LostJobError();
      await upload.publish();
      await deps.audit.publish([jobEndedEvent(request, { success: true, manifest })]);
      await jobs.succeed(db, request.jobId, attempt, manifest, now, now + settings.fileTtlMs);
    });
  } catch (err) {
    clearInterval(timer);
    await upload.discard();
    throw err;
  }
}
