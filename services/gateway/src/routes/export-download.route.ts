import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { type Clock } from '@audit/shared/contract';
import { exportFileName, type ExportFiles } from '@audit/shared/export-jobs';
import { AppError, errorKind } from '@audit/shared/platform';
import type { ExportJobStore } from '../adapters/export-job-store.js';
import { byteRange, rangeApplies } from '../domain/byte-range.js';
import { exportDownloadAuditEvent } from '../domain/export-event.js';
import { currentStatus, EXPORT_MEDIA_TYPES } from '../domain/export-job-state.js';
import { apiCallOf, auditWriter, unavailable } from '../plugins/public-api.plugin.js';
import { jobOf } from './export-jobs.route.js';
import { downloadAnswers, exportFile, exportJobIdParam, fileHeaders } from '../schemas/openapi.parts.js';
import { z } from 'zod';
import { apiRoute, type ApiRoute } from './api-route.js';

export const downloadExportJobRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/exports/{id}/download',
  scope: 'audit:export',
  statuses: [403, 404, 422],
  operationId: 'downloadExportJob',
  tags: ['Exports'],
  summary: "A succeeded job's file, whole or one byte range of it.",
  description:
    'Resumable: `Range` with one range answers 206, a range outside the file 416; several ranges or a malformed `Range` are ignored (200, the whole file), as is a `Range` whose `If-Range` is not the current `ETag`. The file is gzip NDJSON or CSV (`application/gzip`) or Parquet.',
  requestParams: {
    path: exportJobIdParam,
    header: z.object({
      Range: z.string().optional().meta({ description: '`bytes=a-b`, `bytes=a-` or `bytes=-n`.' }),
      'If-Range': z.string().optional().meta({
        description: 'The `ETag` the client has: the range applies only while it matches.',
      }),
    }),
  },
  ok: { description: 'The whole file.', ...exportFile },
  okHeaders: fileHeaders,
  more: downloadAnswers,
};

export interface ExportDownloadOptions {
  exportJobs: Pick<ExportJobStore, 'get'>;
  exportFiles: Pick<ExportFiles, 'size' | 'read'>;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
  clock: Clock;
}

class ExportNotReadyError extends errorKind(409, 'export_not_ready') {}

class ExportExpiredError extends AppError {
  readonly status = 410;
  readonly code = 'export_expired';

  constructor() {
    super("The export job's file has expired and was deleted.");
  }
}

class RangeNotSatisfiableError extends AppError {
  readonly status = 416;
  readonly code = 'range_not_satisfiable';

  constructor(size: number) {
    super(`The range lies outside the file, which has ${size} bytes.`);
    this.headers['content-range'] = `bytes */${size}`;
  }
}

// How long a download may make no progress (its client reads nothing) before it is ended, closing its file.
const DOWNLOAD_STALL_MS = 60_000;

export function exportDownloadRoute(app: FastifyInstance, opts: ExportDownloadOptions): void {
  const audit = auditWriter(opts);
  apiRoute<{ Params: { id: string } }>(app, downloadExportJobRoute, async (request, reply) => {
    const job = await jobOf(opts.exportJobs, request);
    const status = currentStatus(job, opts.clock());
    if (status === 'expired') throw new ExportExpiredError();
    if (status !== 'succeeded' || job.manifest === null) {
      throw new ExportNotReadyError(
        `The export job is ${status}: only a succeeded job has a file to download.`,
      );
    }
    const size = await opts.exportFiles.size(job.jobId, job.format).catch(unavailable('export files'));
    if (size === null) throw new ExportExpiredError();
    const etag = `"${job.manifest.sha256}"`;
    const range = rangeApplies(request.headers['if-range'], etag)
      ? byteRange(request.headers.range, size)
      : ({ kind: 'whole' } as const);
    if (range.kind === 'unsatisfiable') throw new RangeNotSatisfiableError(size);
    const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, size - 1];
    // Every GET that sends bytes is audited before it sends them, the range included: a 503 if Kafka does not take
    // the event in time, as the synchronous export. HEAD sends none.
    if (request.method === 'GET' && size > 0) {
      const sent = { sha256: job.manifest.sha256, start, end, size };
      await audit(exportDownloadAuditEvent(apiCallOf(request), job, sent));
    }
    // HEAD says what GET would send without reading the file; an empty file has nothing to read. The file is
    // opened before the answer's headers are set, so that a failure to open it is still a clean error answer.
    const body =
      request.method === 'HEAD' || size === 0
        ? Readable.from([])
        : await opts.exportFiles.read(job.jobId, job.format, start, end).catch(unavailable('export files'));
    // A client that stops reading would hold its file open for good: a stalled download is ended.
    reply.raw.setTimeout(DOWNLOAD_STALL_MS, () => reply.raw.destroy());
    return reply
      .code(range.kind === 'partial' ? 206 : 200)
      .headers({
        'accept-ranges': 'bytes',
        etag,
        'content-type': EXPORT_MEDIA_TYPES[job.format],
        'content-disposition': `attachment; filename="${exportFileName(job.jobId, job.format)}"`,
        'content-length': String(end - start + 1),
        ...(range.kind === 'partial' ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
      })
      .send(body);
  });
}
