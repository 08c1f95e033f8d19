import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { ExportJobFormat } from './export-job.js';
import { exportFileName, type ExportFiles } from './export-files.js';
import { MultipartWriter, type MultipartTarget } from './s3-multipart.writer.js';

/** A store's "there is no such thing" (404), whatever the operation calls it. */
const missing = (err: unknown) => err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404;

/** An S3 store's settings (export-storage.ts reads them from the environment). */
export interface S3StorageSettings {
  kind: 's3';
  /** An S3-compatible store's URL; none: AWS S3 itself in the region. */
  endpoint: string | undefined;
  region: string;
  bucket: string;
  prefix: string;
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
  partBytes: number;
}

/** A client's own sockets: at most `sockets` at once, each request ended after `requestTimeoutMs`. */
export interface SocketPool {
  sockets: number;
  requestTimeoutMs: number;
}

export function s3Client(settings: S3StorageSettings, pool?: SocketPool): S3Client {
  return new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    // A copy: the SDK marks where credentials came from on the object itself, and a loaded config is frozen.
    credentials: settings.credentials && { ...settings.credentials },
    // Checksums only where an operation requires them: the newer default ones are not understood by many
    // S3-compatible stores, and every part carries its Content-MD5 (s3-multipart.writer.ts).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: 5000,
      requestTimeout: pool?.requestTimeoutMs ?? 60_000,
      ...(pool && { httpAgent: { maxSockets: pool.sockets }, httpsAgent: { maxSockets: pool.sockets } }),
    },
  });
}

/**
 * Export files in an S3-compatible bucket (docs/exports.md "Files"). An attempt's file is a multipart upload
 * to the file's own key, completed when published: the object appears whole or not at all, and an attempt
 * that is discarded or killed leaves only an incomplete upload, which `remove` aborts.
 */
export function s3ExportFiles(settings: S3StorageSettings, client = s3Client(settings)): ExportFiles {
  const { bucket: Bucket, prefix } = settings;
  const keyOf = (jobId: string, format: ExportJobFormat) => `${prefix}${exportFileName(jobId, format)}`;
  const abort = (target: MultipartTarget) =>
    client.send(new AbortMultipartUploadCommand(target)).catch((err: unknown) => {
      if (!missing(err)) throw err;
    });
  return {
    describe: () =>
      `s3 bucket ${Bucket}, prefix '${prefix}'${settings.endpoint ? ` at ${settings.endpoint}` : ''}`,
    async prepare() {
      const exists = await client.send(new HeadBucketCommand({ Bucket })).then(
        () => true,
        (err: unknown) => (missing(err) ? false : Promise.reject(err)),
      );
      if (!exists) await client.send(new CreateBucketCommand({ Bucket }));
    },
    async create(jobId, format) {
      const Key = keyOf(jobId, format);
      const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }));
      if (!UploadId) throw new Error(`the store started no multipart upload for ${Key}`);
      const target = { Bucket, Key, UploadId };
      const stream = new MultipartWriter(client, target, settings.partBytes);
      return {
        stream,
        publish: async () => {
          await finished(stream);
          await client.send(
            new CompleteMultipartUploadCommand({ ...target, MultipartUpload: { Parts: stream.parts } }),
          );
        },
        discard: async () => {
          stream.destroy();
          // A part still on its way could be stored after the abort: wait for them first.
          await stream.settled();
          await abort(target);
        },
      };
    },
    async size(jobId, format) {
      return client.send(new HeadObjectCommand({ Bucket, Key: keyOf(jobId, format) })).then(
        (head) => head.ContentLength ?? 0,
        (err: unknown) => (missing(err) ? null : Promise.reject(err)),
      );
    },
    async read(jobId, format, start, end) {
      const Key = keyOf(jobId, format);
      const got = await client.send(new GetObjectCommand({ Bucket, Key, Range: `bytes=${start}-${end}` }));
      return got.Body as Readable;
    },
    async remove(jobId, format) {
      const Key = keyOf(jobId, format);
      await client.send(new DeleteObjectCommand({ Bucket, Key }));
      // Uploads of attempts that never ended (a killed exporter) hold their parts until aborted.
      let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
      for (;;) {
        const page = await client.send(new ListMultipartUploadsCommand({ Bucket, Prefix: Key, ...markers }));
        for (const upload of page.Uploads ?? []) {
          if (upload.Key !== Key || !upload.UploadId) continue;
          await abort({ Bucket, Key, UploadId: upload.UploadId });
        }
        if (!page.IsTruncated) return;
        markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
      }
    },
  };
}
