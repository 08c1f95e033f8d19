import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuditPublisher } from '@audit/shared/audit-topic';
import { UUID_PATTERN, type Clock } from '@audit/shared/contract';
import { type ExportJob, type ExportJobRequest } from '@audit/shared/export-jobs';
import { NotFoundError, RateLimitedError, ValidationError, publishWithin } from '@audit/shared/platform';
import type { ExportJobRequests } from '../adapters/export-job-requests.js';
import type { ExportJobStore } from '../adapters/export-job-store.js';
import { decodeJobsCursor, encodeJobsCursor } from '../domain/cursor.js';
import { exportJobAuditEvent } from '../domain/export-event.js';
import {
  parseExportJobRequest,
  parseExportJobsQuery,
  exportJobBodySchema,
  exportJobsQuerySchema,
} from '../domain/export-job-request.js';
import { queuedJob } from '../domain/export-job-state.js';
import { apiCallOf, auditWriter, refuseUnknownQuery, unavailable } from '../plugins/public-api.plugin.js';
import {
  exportJobListSchema,
  exportJobPath,
  exportJobSchema,
  exportJobView,
} from '../schemas/export-jobs.schema.js';
import { exportJobIdParam, exportJobLinks, link } from '../schemas/openapi.parts.js';
import { json } from '../schemas/openapi.responses.js';
import { z } from 'zod';
import { coveredBy } from '../domain/narrowing.js';
import { narrowedFilters } from './narrowed-filters.js';
import { apiRoute, type ApiRoute } from './api-route.js';

export const createExportJobRoute: ApiRoute = {
  method: 'POST',
  path: '/audit/exports',
  scope: 'audit:export',
  statuses: [400, 403, 413, 415, 422],
  narrowable: true,
  operationId: 'createExportJob',
  tags: ['Exports'],
  summary: "Start an export job: one file of the window's events, in list order.",
  description:
    'The file holds exactly the events that paging the list with these filters would give, among those ingested by the time the job is accepted (docs/exports.md). `since` is required, and the window at most `EXPORT_JOB_MAX_WINDOW_DAYS` long (default 366). A tenant has at most `EXPORT_JOBS_IN_FLIGHT` jobs queued or running (default 3); one more is 429 with scope `concurrent_export_jobs`. Every request is recorded as an `audit.export` event.',
  requestBody: { required: true, ...json(exportJobBodySchema) },
  okStatus: 202,
  ok: { description: 'The job, queued.', ...json(exportJobSchema), links: exportJobLinks('') },
  okHeaders: { Location: z.string().meta({ description: "The job's URL." }) },
};

export const listExportJobsRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/exports',
  scope: 'audit:export',
  statuses: [403, 422],
  operationId: 'listExportJobs',
  tags: ['Exports'],
  summary: "The tenant's export jobs, newest first.",
  description:
    "Page with `cursor` (the previous page's `next_cursor`) until `has_more` is false. Every job is listed, expired and failed ones included.",
  requestParams: { query: exportJobsQuerySchema },
  ok: {
    description: 'One page.',
    ...json(exportJobListSchema),
    links: {
      GetFirstExportJob: link('getExportJob', 'id', '/exports/0/id', 'The first job of the page.'),
    },
  },
};

export const getExportJobRoute: ApiRoute = {
  method: 'GET',
  path: '/audit/exports/{id}',
  scope: 'audit:export',
  narrowable: true,
  statuses: [403, 404, 422],
  operationId: 'getExportJob',
  tags: ['Exports'],
  summary: 'One export job: its status, progress and, once it succeeded, its manifest.',
  description:
    "An id that does not exist, belongs to another tenant, is not inside a narrowed viewer token's filter or is no UUID at all is the same 404.",
  requestParams: { path: exportJobIdParam },
  ok: {
    description: 'The job.',
    ...json(exportJobSchema),
    links: { DownloadExportJob: exportJobLinks('').DownloadExportJob },
  },
};

export interface ExportJobLimits {
  /** Jobs one tenant may have queued or running at once (docs/exports.md "Jobs"). */
  inFlight: number;
  /** The longest window a job may cover. */
  maxWindowDays: number;
}

export interface ExportJobRoutesOptions {
  exportJobs: Pick<ExportJobStore, 'create' | 'get' | 'list'>;
  exportJobRequests: ExportJobRequests;
  exportJobLimits: ExportJobLimits;
  auditLog: Pick<AuditPublisher, 'publish'>;
  auditTimeoutMs: number;
  cursorSecret: string;
  clock: Clock;
}

/** A tenant at its limit waits for a job to end: that takes a while, so the client is told to wait a minute. */
const IN_FLIGHT_RETRY_AFTER_S = 60;

// Missing, another tenant's, and not a UUID at all: one identical answer, so that ids cannot be probed.
const noSuchJob = () => new NotFoundError('No export job with this id.');

/** The key's tenant's job the path names, or 404. */
export async function jobOf(
  jobs: Pick<ExportJobStore, 'get'>,
  request: FastifyRequest<{ Params: { id: string } }>,
): Promise<ExportJob> {
  refuseUnknownQuery(request.query);
  const id = request.params.id;
  if (!UUID_PATTERN.test(id)) throw noSuchJob();
  const job = await jobs.get(request.principal!.tenantId, id.toLowerCase()).catch(unavailable('postgres'));
  // A narrowed viewer token sees only the jobs whose filters hold its own: their files are inside it.
  const narrowing = request.principal!.viewer?.narrowedTo;
  if (!job || (narrowing && !coveredBy(job.filters, narrowing))) throw noSuchJob();
  return job;
}

export function exportJobRoutes(app: FastifyInstance, opts: ExportJobRoutesOptions): void {
  const audit = auditWriter(opts);

  apiRoute(
    app,
    createExportJobRoute,
    async (request, reply) => {
      refuseUnknownQuery(request.query);
      const acceptedAt = opts.clock();
      const parsed = parseExportJobRequest(request.body, {
        now: acceptedAt,
        maxWindowDays: opts.exportJobLimits.maxWindowDays,
      });
      if (!parsed.ok) throw new ValidationError('Invalid export job.', parsed.errors);
      const principal = request.principal!;
      const job: ExportJobRequest = {
        jobId: randomUUID(),
        tenantId: principal.tenantId,
        ...parsed.job,
        filters: narrowedFilters(principal, parsed.job.filters),
        acceptedAt,
        // The key's public prefix: it names the key, and is no secret.
        requestedBy: principal.prefix,
      };
      // Inside the job's transaction: its audit event, then its request record, the last step before the commit,
      // so that an exporter reading the record finds the job committed as soon as possible.
      const created = await opts.exportJobs
        .create(job, opts.exportJobLimits.inFlight, async (accepted) => {
          await audit(exportJobAuditEvent(apiCallOf(request), { success: true, job: accepted }));
          await publishWithin(opts.exportJobRequests.publish(accepted), opts.auditTimeoutMs);
        })
        .catch(unavailable('postgres'));
      if (!created) throw new RateLimitedError('concurrent_export_jobs', IN_FLIGHT_RETRY_AFTER_S);
      return reply
        .code(202)
        .header('location', exportJobPath(job.jobId))
        .send(exportJobSchema.parse(exportJobView(queuedJob(job), acceptedAt)));
    },
    {
      onScopeDenied: (request: FastifyRequest) =>
        audit(exportJobAuditEvent(apiCallOf(request), { success: false, jobId: randomUUID() })),
    },
  );

  apiRoute<{ Querystring: Record<string, unknown> }>(app, listExportJobsRoute, async (request) => {
    const parsed = parseExportJobsQuery(request.query ?? {});
    if (!parsed.ok) throw new ValidationError('Invalid query parameters.', parsed.errors);
    const { limit, cursor } = parsed;
    const tenant = request.principal!.tenantId;
    const position = cursor === undefined ? null : decodeJobsCursor(cursor, tenant, opts.cursorSecret);
    if (cursor !== undefined && !position) {
      throw new ValidationError('Invalid cursor.', [
        { field: 'cursor', message: 'is malformed, was altered, or was issued for another tenant or list' },
      ]);
    }
    // One job more than the page: has_more is then exact, never a guess.
    const jobs = await opts.exportJobs
      .list(tenant, position && { acceptedAt: position.ts, jobId: position.id }, limit + 1)
      .catch(unavailable('postgres'));
    const page = jobs.slice(0, limit);
    const last = page.at(-1);
    const hasMore = jobs.length > limit && last !== undefined;
    const now = opts.clock();
    return exportJobListSchema.parse({
      exports: page.map((job) => exportJobView(job, now)),
      page: {
        limit,
        returned: page.length,
        next_cursor: hasMore
          ? encodeJobsCursor({ ts: last.acceptedAt, id: last.jobId }, tenant, opts.cursorSecret)
          : null,
        has_more: hasMore,
      },
    });
  });

  apiRoute<{ Params: { id: string } }>(app, getExportJobRoute, async (request) =>
    exportJobSchema.parse(exportJobView(await jobOf(opts.exportJobs, request), opts.clock())),
  );
}
