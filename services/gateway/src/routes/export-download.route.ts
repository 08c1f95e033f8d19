import type { ServerResponse } from 'node:http';
import { pipeline, Readable, Transform } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { type Clock } from '@audit/shared/contract';
import { exportFileName, type ExportFiles } from '@audit/shared/export-jobs';
import { AppError, errorKind, RateLimitedError } from '@audit/shared/platform';
import type { ExportJobStore } from '../adapters/export-job-store.js';
import { byteRange, rangeApplies } from '../domain/byte-range.js';
import { tooSlow, type DownloadSlots } from '../domain/download-slots.js';
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
  narrowable: true,
  statuses: [403, 404, 422],
  operationId: 'downloadExportJob',
  tags: ['Exports'],
  summary: "A succeeded job's file, whole or one byte range of it.",
  description:
    'Resumable: `Range` with one range answers 206, a range outside the file 416; several ranges or a malformed `Range` are ignored (200, the whole file), as is a `Range` whose `If-Range` is not the current `ETag`. The file is gzip NDJSON or CSV (`application/gzip`) or Parquet. A gateway serves at most `EXPORT_DOWNLOADS_PER_KEY` downloads of a key at once (default 4), `EXPORT_DOWNLOADS_PER_TENANT` of a tenant (16) and `EXPORT_DOWNLOADS` in all (64): one more is 429 with scope `concurrent_downloads`. A download that sends less than `EXPORT_DOWNLOAD_MIN_BYTES_PER_S` (16 KiB) a second over a window of `EXPORT_DOWNLOAD_RATE_WINDOW_MS` (30 s), or nothing for 60 s, is ended: resume it with `Range`.',
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
  /** The store; `read` through a socket pool of the downloads' own where the store has sockets (S3). */
  exportFiles: Pick<ExportFiles, 'size' | 'read'>;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
  clock: Clock;
  /** The downloads this process serves at once (EXPORT_DOWNLOADS*). */
  downloads: DownloadSlots;
  /** The least a download must send, on average over each window (EXPORT_DOWNLOAD_MIN_BYTES_PER_S, …_WINDOW_MS). */
  minRate: { bytesPerS: number; windowMs: number };
}

/** A download at its limit waits for another to end: downloads of export files take a while. */
const DOWNLOADS_RETRY_AFTER_S = 10;

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

/** The body, counted as it goes: the answer is ended when a window passes with less sent than the least rate. */
function ratedBody(
  body: Readable,
  answer: ServerResponse,
  minRate: ExportDownloadOptions['minRate'],
): Readable {
  let inWindow = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      inWindow += chunk.length;
      done(null, chunk);
    },
  });
  pipeline(body, counted, () => undefined);
  const timer = setInterval(() => {
    if (tooSlow(inWindow, minRate.windowMs, minRate.bytesPerS)) answer.destroy();
    inWindow = 0;
  }, minRate.windowMs);
  answer.once('close', () => clearInterval(timer));
  return counted;
}

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
    // HEAD says what GET would send without reading the file; an empty file has nothing to read.
    const sends = request.method === 'GET' && size > 0;
    // Bytes are sent only within the key's, the tenant's and the process's slots, held until the answer ends.
    const release = sends ? opts.downloads.take(request.principal!.prefix, job.tenantId) : () => undefined;
    if (!release) throw new RateLimitedError('concurrent_downloads', DOWNLOADS_RETRY_AFTER_S);
    reply.raw.once('close', release);
    let body: Readable = Readable.from([]);
    try {
      // Every GET that sends bytes is audited before it sends them, the range included: a 503 if Kafka does not
      // take the event in time, as the synchronous export. HEAD sends none.
      if (sends) {
        const sent = { sha256: job.manifest.sha256, start, end, size };
        await audit(exportDownloadAuditEvent(apiCallOf(request), job, sent));
        // Opened before the answer's headers are set, so that a failure to open it is still a clean error answer.
        body = await opts.exportFiles
          .read(job.jobId, job.format, start, end)
          .catch(unavailable('export files'));
      }
    } catch (err) {
      release();
      throw err;
    }
    // The client went away while the file was being opened: its places are back already, and nothing is sent.
    if (reply.raw.destroyed) {
      body.destroy();
      return reply;
    }
    // A client that stops reading, or reads too slowly, would hold its file, its slots and a socket of the store
    // for as long as it likes: a stalled download, and one below the least rate over a window, is ended.
    reply.raw.setTimeout(DOWNLOAD_STALL_MS, () => reply.raw.destroy());
    if (sends) body = ratedBody(body, reply.raw, opts.minRate);
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
