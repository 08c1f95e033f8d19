import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
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
  /** A new file for the job's attempt, invisible to readers until published. */
  create(jobId: string, format: ExportJobFormat, attempt: number): Promise<ExportUpload>;
  /** The published file's size, or null when there is none. */
  size(jobId: string, format: ExportJobFormat): Promise<number | null>;
  /** Bytes [start, end] (inclusive) of the published file. */
  read(jobId: string, format: ExportJobFormat, start: number, end: number): Readable;
  /** Removes the job's file and any attempt's leftovers; no error when there is none. */
  remove(jobId: string, format: ExportJobFormat): Promise<void>;
}

/** The file's name: the job id (a UUID, checked) and the format's extension. */
export function exportFileName(jobId: string, format: ExportJobFormat): string {
  z.uuid().parse(jobId);
  return `${jobId}.${format === 'parquet' ? 'parquet' : `${format}.gz`}`;
}

/**
 * Export files in a local directory. A file is written as `<name>.<attempt>.partial` and renamed into place
 * when published: a rename within one directory is atomic, so a reader sees the whole file or none.
 */
export function filesystemExportFiles(dir: string): ExportFiles {
  const path = (jobId: string, format: ExportJobFormat) => join(dir, exportFileName(jobId, format));
  return {
    async create(jobId, format, attempt) {
      await mkdir(dir, { recursive: true });
      const final = path(jobId, format);
      const partial = `${final}.${attempt}.partial`;
      // flush: the bytes reach the disk before the file closes, so a crash after the rename finds them whole.
      const stream = createWriteStream(partial, { flags: 'w', flush: true });
      const closed = finished(stream).catch(() => undefined);
      return {
        stream,
        publish: async () => {
          await finished(stream);
          await rename(partial, final);
          // The rename itself is durable once the directory is.
          const folder = await open(dir, 'r');
          await folder.sync().finally(() => folder.close());
        },
        discard: async () => {
          stream.destroy();
          await closed;
          await rm(partial, { force: true });
        },
      };
    },
    async size(jobId, format) {
      const s = await stat(path(jobId, format)).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
      return s?.size ?? null;
    },
    read: (jobId, format, start, end) => createReadStream(path(jobId, format), { start, end }),
    async remove(jobId, format) {
      const name = exportFileName(jobId, format);
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const n of names)
        if (n === name || n.startsWith(`${name}.`)) await rm(join(dir, n), { force: true });
    },
  };
}

/** The export store's settings, for every service that writes or serves export files. */
export const exportStorageEnv = {
  EXPORT_DIR: z.string().min(1).default('.data/exports'),
};

export function exportStorageSettings(e: { EXPORT_DIR: string }) {
  return { dir: e.EXPORT_DIR };
}

export type ExportStorageSettings = ReturnType<typeof exportStorageSettings>;

/** The store the settings name. */
export const exportFiles = (settings: ExportStorageSettings): ExportFiles =>
  filesystemExportFiles(settings.dir);
