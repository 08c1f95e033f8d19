import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { loadSchemaVersions } from '../contract/codec/schema-registry.js';
import { DecodeError, singleObjectCodec, type Codec } from '../contract/codec/single-object.codec.js';
import type { EventFilters } from '../projection/event-filters.js';

/** The file formats of export jobs (docs/exports.md "Files"). */
export const EXPORT_JOB_FORMATS = ['ndjson', 'csv', 'parquet'] as const;
export type ExportJobFormat = (typeof EXPORT_JOB_FORMATS)[number];

/** A job's states; the only transitions are docs/exports.md "Jobs"'s. */
export const EXPORT_JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'expired'] as const;
export type ExportJobStatus = (typeof EXPORT_JOB_STATUSES)[number];

/** An event's place in the list's order. */
export interface ExportPosition {
  ts: number;
  eventId: string;
}

/** What a succeeded job wrote. */
export interface ExportManifest {
  rowCount: number;
  byteSize: number;
  sha256: string;
  /** The file's first row (the newest event) and its last (the oldest); null for an empty window. */
  first: ExportPosition | null;
  last: ExportPosition | null;
  /** The tenant's latest checkpoint made by the job's acceptance; absent in manifests written before it was kept. */
  integrityTreeSize?: number | null;
}

export const exportManifestSchema = z.object({
  rowCount: z.number().int().min(0),
  byteSize: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  first: z.object({ ts: z.number().int(), eventId: z.string() }).nullable(),
  last: z.object({ ts: z.number().int(), eventId: z.string() }).nullable(),
  integrityTreeSize: z.number().int().min(1).nullable().optional(),
});

/** The job as accepted: everything the exporter needs to write its file, fixed for good. */
export interface ExportJobRequest {
  jobId: string;
  tenantId: string;
  format: ExportJobFormat;
  /** The validated filters, times as epoch ms; `since` and `until` are the window below. */
  filters: EventFilters;
  since: number;
  until: number;
  /** Also the bound on the events' `ingested_at` (docs/exports.md "Window"). */
  acceptedAt: number;
  /** The API key's id. */
  requestedBy: string;
}

/** The job as stored: its request, and where it is. */
export interface ExportJob extends ExportJobRequest {
  status: ExportJobStatus;
  attempts: number;
  startedAt: number | null;
  finishedAt: number | null;
  rowsWritten: number;
  bytesWritten: number;
  rowsExpected: number | null;
  manifest: ExportManifest | null;
  error: { code: string; message: string } | null;
  expiresAt: number | null;
}

/** Jobs not yet ended: what the per-tenant limit counts. */
export const inFlight = (status: ExportJobStatus) => status === 'queued' || status === 'running';

interface ExportJobRecord {
  job_id: string;
  tenant_id: string;
  format: string;
  filters: string;
  since: number;
  until: number;
  accepted_at: number;
  requested_by: string;
}

// The filters as the request event carries them (JSON text): validated again on the way in, as any stored JSON.
const filtersSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

/** The codec of the job request topic's records (schemas/export-job), to and from the request. */
export function exportJobCodec(schemasDir?: string): Codec<ExportJobRequest> {
  const dir = schemasDir === undefined ? undefined : pathToFileURL(join(schemasDir, 'export-job/'));
  const records = singleObjectCodec<ExportJobRecord>(loadSchemaVersions('export-job', dir));
  return {
    encode: (job) =>
      records.encode({
        job_id: job.jobId,
        tenant_id: job.tenantId,
        format: job.format,
        filters: JSON.stringify(job.filters),
        since: job.since,
        until: job.until,
        accepted_at: job.acceptedAt,
        requested_by: job.requestedBy,
      }),
    decode: (bytes) => {
      const r = records.decode(bytes);
      const format = z.enum(EXPORT_JOB_FORMATS).safeParse(r.format);
      let filters: unknown;
      try {
        filters = JSON.parse(r.filters);
      } catch {
        throw new DecodeError('export job request: filters are not JSON');
      }
      const parsed = filtersSchema.safeParse(filters);
      if (!format.success || !parsed.success)
        throw new DecodeError('export job request: invalid format or filters');
      return {
        jobId: r.job_id,
        tenantId: r.tenant_id,
        format: format.data,
        filters: parsed.data as EventFilters,
        since: r.since,
        until: r.until,
        acceptedAt: r.accepted_at,
        requestedBy: r.requested_by,
      };
    },
  };
}
