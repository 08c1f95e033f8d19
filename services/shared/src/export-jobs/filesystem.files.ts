import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { ExportJobFormat } from './export-job.js';
import { exportFileName, type ExportFiles } from './export-files.js';

// A tenant's events are PHI: the directory we make and every file in it are the service user's only, as the
// signing keys are (docs/exports.md "Files").
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Export files in a local directory. A file is written as `<name>.<attempt>.partial` and renamed into place
 * when published: a rename within one directory is atomic, so a reader sees the whole file or none.
 */
export function filesystemExportFiles(dir: string): ExportFiles {
  const path = (jobId: string, format: ExportJobFormat) => join(dir, exportFileName(jobId, format));
  return {
    describe: () => `directory ${dir}`,
    prepare: async () => {
      await mkdir(dir, { recursive: true, mode: DIR_MODE });
    },
    async create(jobId, format, attempt) {
      await mkdir(dir, { recursive: true, mode: DIR_MODE });
      const final = path(jobId, format);
      const partial = `${final}.${attempt}.partial`;
      // flush: the bytes reach the disk before the file closes, so a crash after the rename finds them whole.
      const stream = createWriteStream(partial, { flags: 'w', flush: true, mode: FILE_MODE });
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
    async read(jobId, format, start, end) {
      const stream = createReadStream(path(jobId, format), { start, end });
      // Opened before it is returned, so that a file that cannot be opened is an error here, not mid-answer.
      await once(stream, 'readable');
      return stream;
    },
    async remove(jobId, format) {
      const name = exportFileName(jobId, format);
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const n of names)
        if (n === name || n.startsWith(`${name}.`)) await rm(join(dir, n), { force: true });
    },
  };
}
