import { z } from 'zod';
import { STORED_UUID_PATTERN, formatTimestamp } from '@audit/shared/contract';
import {
  EXPORT_JOB_FORMATS,
  EXPORT_JOB_STATUSES,
  type ExportJob,
  type ExportPosition,
} from '@audit/shared/export-jobs';
import { type EventFilters } from '@audit/shared/projection';
import { currentStatus } from '../domain/export-job-state.js';
import { MAX_JOBS_LIMIT } from '../domain/export-job-request.js';
import { API_PREFIX } from './api-prefix.js';
import { pageDescriptorSchema, timestampSchema } from './read-api.schema.js';

const time = (description: string, example: string) => timestampSchema.meta({ description, example });
const count = (description: string, example: number) => z.int().min(0).meta({ description, example });

export const exportJobIdSchema = z.string().regex(STORED_UUID_PATTERN).meta({
  description: "The job's id: a UUID, 8-4-4-4-12 lowercase hex.",
  example: '5f0c6e2a-8d4b-4c1e-9a7f-3b2d1e0c9f84',
});

const positionSchema = z
  .object({
    timestamp: time("The event's timestamp.", '2026-10-31T23:59:58.120+00:00'),
    event_id: z.string().regex(STORED_UUID_PATTERN).meta({ example: '0b7e1a52-5c0e-4a8e-9f3b-2d6c1e4a7b90' }),
  })
  .meta({ id: 'ExportPosition', description: "An event's place in the list's order." });

/** The filters as the request gave them; every filter of the list can appear (a unit test holds this to it). */
const filtersSchema = z
  .object({
    action: z.string().optional(),
    action_prefix: z.string().optional(),
    resource_type: z.string().optional(),
    resource_id: z.string().optional().meta({ example: 'patient-123' }),
    user_id: z.string().optional(),
    source_ip: z.string().optional(),
    phi_involved: z.boolean().optional(),
    success: z.boolean().optional(),
    patient_id: z.string().optional().meta({ example: 'p-1042' }),
    since: time('As given, rendered as every time of the API.', '2025-11-01T00:00:00.000+00:00'),
    until: time(
      'As given; absent when the request left it to the time of acceptance.',
      '2026-11-01T00:00:00.000+00:00',
    ).optional(),
  })
  .meta({
    id: 'ExportJobFilters',
    description: 'The filters as the request gave them, times rendered as in the list.',
  });

/** docs/exports.md "Jobs": every job the API returns is parsed by this before it leaves. */
export const exportJobSchema = z
  .object({
    id: exportJobIdSchema,
    status: z.enum(EXPORT_JOB_STATUSES).meta({
      description:
        '`queued`, then `running`, then `succeeded` (downloadable until `manifest.expires_at`, then `expired`) or `failed`.',
      example: 'succeeded',
    }),
    format: z.enum(EXPORT_JOB_FORMATS).meta({ example: 'csv' }),
    filters: filtersSchema,
    since: time("The window's start (inclusive).", '2025-11-01T00:00:00.000+00:00'),
    until: time(
      "The window's end (exclusive): the request's `until`, or else the time of acceptance.",
      '2026-11-01T00:00:00.000+00:00',
    ),
    created_at: time(
      'When the job was accepted: only events ingested by then are in its file.',
      '2026-11-21T09:30:00.000+00:00',
    ),
    started_at: time('When its current attempt started.', '2026-11-21T09:30:01.250+00:00').nullable(),
    finished_at: time('When it succeeded or failed.', '2026-11-21T09:34:12.900+00:00').nullable(),
    progress: z
      .object({
        rows_written: count('Rows written so far by the current attempt.', 1_250_000),
        bytes_written: count('Bytes of the file written so far.', 98_304_512),
        rows_expected: count('Rows in the window, once counted.', 1_250_000).nullable(),
      })
      .meta({ id: 'ExportJobProgress' }),
    manifest: z
      .object({
        row_count: count('Rows in the file.', 1_250_000),
        byte_size: count("The file's size in bytes.", 98_304_512),
        sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .meta({
            description: "SHA-256 of the file's bytes, lowercase hex; also the download's `ETag`.",
            example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
          }),
        first: positionSchema
          .nullable()
          .meta({ description: 'The first row (the newest event); `null` when empty.' }),
        last: positionSchema
          .nullable()
          .meta({ description: 'The last row (the oldest event); `null` when empty.' }),
        expires_at: time('When the file is deleted and the job expires.', '2026-11-28T09:34:12.900+00:00'),
        integrity_tree_size: z.int().min(1).nullable().meta({
          description:
            "The tenant's latest checkpoint made by the job's acceptance (`null` while it had none): every event it covers is in the file; the `tree_size` to ask the window proof of the job's window with, to check an NDJSON or CSV file offline (docs/integrity.md \"Offline verification\").",
          example: 1_250_431,
        }),
      })
      .nullable()
      .meta({
        id: 'ExportManifest',
        description: 'What a succeeded (or since expired) job wrote; `null` before.',
      }),
    error: z
      .object({
        code: z.string().meta({ example: 'attempts_exhausted' }),
        message: z.string(),
      })
      .nullable()
      .meta({ description: 'Why a failed job failed; `null` otherwise.' }),
    download_url: z
      .string()
      .nullable()
      .meta({
        description: 'Where the file is downloaded while the job is `succeeded`; `null` otherwise.',
        example: `${API_PREFIX}/audit/exports/5f0c6e2a-8d4b-4c1e-9a7f-3b2d1e0c9f84/download`,
      }),
  })
  .meta({ id: 'ExportJob', description: 'Clients must tolerate fields added later.' });

export const exportJobListSchema = z
  .object({
    exports: z.array(exportJobSchema).meta({ description: 'Newest first.' }),
    page: pageDescriptorSchema
      .extend({ limit: z.int().min(1).max(MAX_JOBS_LIMIT).meta({ description: 'The page size applied.' }) })
      .meta({ id: 'ExportJobPage' }),
  })
  .meta({ id: 'ExportJobList' });

/** Where a job lives in the API, and its file. */
export const exportJobPath = (jobId: string) => `${API_PREFIX}/audit/exports/${jobId}`;

const ts = (ms: number | null) => (ms === null ? null : formatTimestamp(ms));
const position = (p: ExportPosition | null) =>
  p === null ? null : { timestamp: formatTimestamp(p.ts), event_id: p.eventId };

const filtersView = (filters: EventFilters) => ({
  ...filters,
  ...(filters.since === undefined ? {} : { since: formatTimestamp(filters.since) }),
  ...(filters.until === undefined ? {} : { until: formatTimestamp(filters.until) }),
});

/** The job on the wire at `now`, snake_case; the schema still has to parse it. */
export function exportJobView(job: ExportJob, now: number) {
  const status = currentStatus(job, now);
  const { manifest, expiresAt } = job;
  return {
    id: job.jobId,
    status,
    format: job.format,
    filters: filtersView(job.filters),
    since: formatTimestamp(job.since),
    until: formatTimestamp(job.until),
    created_at: formatTimestamp(job.acceptedAt),
    started_at: ts(job.startedAt),
    finished_at: ts(job.finishedAt),
    progress: {
      rows_written: job.rowsWritten,
      bytes_written: job.bytesWritten,
      rows_expected: job.rowsExpected,
    },
    manifest:
      manifest === null || expiresAt === null
        ? null
        : {
            row_count: manifest.rowCount,
            byte_size: manifest.byteSize,
            sha256: manifest.sha256,
            first: position(manifest.first),
            last: position(manifest.last),
            expires_at: formatTimestamp(expiresAt),
            integrity_tree_size: manifest.integrityTreeSize ?? null,
          },
    error: job.error,
    download_url: status === 'succeeded' ? `${exportJobPath(job.jobId)}/download` : null,
  };
}
