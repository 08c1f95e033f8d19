import {
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  AbortMultipartUploadCommand,
} from '@aws-sdk/client-s3';
import { exportFiles, s3Client, type S3StorageSettings } from '@audit/shared/export-jobs';
import type { TestNames } from './names.js';

// The local stack's S3Proxy (infra/local/stack.sh env); CI and developers run the same.
const ENDPOINT = process.env.EXPORT_S3_ENDPOINT ?? 'http://127.0.0.1:15990';
const ACCESS_KEY_ID = process.env.EXPORT_S3_ACCESS_KEY_ID ?? 'audit';
const SECRET_ACCESS_KEY = process.env.EXPORT_S3_SECRET_ACCESS_KEY ?? 'audit-local-secret-0123456789';

/** The test's own bucket: a name S3 takes, made from the test's id. */
export const testBucket = (names: TestNames) =>
  `audit-${names.id.toLowerCase().replace(/_/g, '-')}`.slice(0, 63);

/** The variables that put a service's export files in the test's bucket. */
export function s3StorageEnv(names: TestNames): Record<string, string> {
  return {
    EXPORT_STORAGE: 's3',
    EXPORT_S3_ENDPOINT: ENDPOINT,
    EXPORT_S3_BUCKET: testBucket(names),
    EXPORT_S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
    EXPORT_S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
  };
}

/** The same store as settings, for tests that drive it in-process; `partBytes` small to make many parts. */
export function s3TestSettings(names: TestNames, partBytes = 5 * 1024 * 1024): S3StorageSettings {
  return {
    kind: 's3',
    endpoint: ENDPOINT,
    region: 'us-east-1',
    bucket: testBucket(names),
    prefix: 'exports/',
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
    forcePathStyle: true,
    partBytes,
  };
}

/** Makes the test's bucket, as `ops migrate` does for a deployment. */
export const createTestBucket = (names: TestNames) => exportFiles(s3TestSettings(names)).prepare();

/** The keys of multipart uploads begun and neither completed nor aborted. */
export async function incompleteUploads(settings: S3StorageSettings): Promise<string[]> {
  const page = await s3Client(settings).send(new ListMultipartUploadsCommand({ Bucket: settings.bucket }));
  return (page.Uploads ?? []).map((u) => u.Key ?? '');
}

/** The keys of the objects in the bucket. */
export async function objectKeys(settings: S3StorageSettings): Promise<string[]> {
  const page = await s3Client(settings).send(new ListObjectsV2Command({ Bucket: settings.bucket }));
  return (page.Contents ?? []).map((o) => o.Key ?? '');
}

/** Removes the test's bucket with everything in it. */
export async function dropTestBucket(names: TestNames): Promise<void> {
  const settings = s3TestSettings(names);
  const client = s3Client(settings);
  const Bucket = settings.bucket;
  const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket })).catch(() => null);
  if (!uploads) return;
  for (const u of uploads.Uploads ?? [])
    await client.send(new AbortMultipartUploadCommand({ Bucket, Key: u.Key, UploadId: u.UploadId }));
  for (const Key of await objectKeys(settings)) await client.send(new DeleteObjectCommand({ Bucket, Key }));
  await client.send(new DeleteBucketCommand({ Bucket }));
}
