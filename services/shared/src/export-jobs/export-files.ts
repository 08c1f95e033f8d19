import type { Readable, Writable } from 'node:stream';
import { z } from 'zod';
import type { ExportJobFormat } from './export-job.js';

/** A file being written: its bytes go to `stream`; `publish` makes it the job's file, `discard` drops it. */
export interface ExportUpload {
  stream: Writable;
  publish(): Promise<void>;
  discard(): Promise<void>;
}

/** Where export files live (docs/exports.md "Files"): written once and whole, read by byte range. */
export interface ExportFiles {
  /** Where the files go, for logs and the operator: never a credential. */
  describe(): string;
  /** Makes the store ready to take files (the directory, the bucket) when it is not; re-runnable. */
  prepare(): Promise<void>;
  /** A new file for the job's attempt, invisible to readers until published. */
  create(jobId: string, format: ExportJobFormat, attempt: number): Promise<ExportUpload>;
  /** The published file's size, or null when there is none. */
  size(jobId: string, format: ExportJobFormat): Promise<number | null>;
  /** Bytes [start, end] (inclusive) of the published file, opened: a failure to open it rejects here. */
  read(jobId: string, format: ExportJobFormat, start: number, end: number): Promise<Readable>;
  /** Removes the job's file and any attempt's leftovers; no error when there is none. */
  remove(jobId: string, format: ExportJobFormat): Promise<void>;
}

/** The file's name: the job id (a UUID, checked) and the format's extension. */
export function exportFileName(jobId: string, format: ExportJobFormat): string {
  z.uuid().parse(jobId);
  return `${jobId}.${format === 'parquet' ? 'parquet' : `${format}.gz`}`;
}
