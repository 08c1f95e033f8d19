import { z } from 'zod';
import { booleanFlag } from '../platform/config/env.js';
import type { ExportFiles } from './export-files.js';
import { filesystemExportFiles } from './filesystem.files.js';
import { s3Client, s3ExportFiles, type S3StorageSettings, type SocketPool } from './s3.files.js';

/** The export store's settings, for every service that writes, serves or prepares export files. */
export const exportStorageEnv = {
  EXPORT_STORAGE: z
    .enum(['filesystem', 's3'])
    .default('filesystem')
    .meta({
      description:
        "where the export jobs' files live: `filesystem` (`EXPORT_DIR`) or `s3` (the `EXPORT_S3_*` settings); every " +
        'exporter writes and every gateway serves the same store (`docs/exports.md` "Storage")',
    }),
  EXPORT_DIR: z.string().min(1).default('.data/exports').meta({
    description:
      'with `filesystem`: one directory on storage that every exporter, gateway and custodian share',
  }),
  // Any S3-compatible store; without an endpoint, AWS S3 itself in the region.
  EXPORT_S3_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .optional()
    .meta({
      description:
        "with `s3`: an S3-compatible store's URL (the local stack's S3Proxy: `npm run stack -- env`)",
      defaultText: '(AWS)',
    }),
  EXPORT_S3_REGION: z
    .string()
    .min(1)
    .default('us-east-1')
    .meta({ description: "with `s3`: the store's region" }),
  EXPORT_S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name')
    .optional()
    .meta({
      description: 'with `s3`: the bucket (`ops migrate` makes it when missing)',
      defaultText: 'required with `s3`',
    }),
  // Keys are `<prefix><job id>.<extension>`: a prefix of safe key characters, usually ending in `/`.
  EXPORT_S3_PREFIX: z
    .string()
    .max(512)
    .regex(
      /^(?!\/)[A-Za-z0-9!_.*'()/-]*$/,
      "must be made of A-Z a-z 0-9 ! _ . * ' ( ) / - and not start with /",
    )
    .default('exports/')
    .meta({ description: "with `s3`: the keys' prefix" }),
  EXPORT_S3_ACCESS_KEY_ID: z
    .string()
    .min(1)
    .optional()
    .meta({
      description:
        "with `s3`: the access key's id; both keys or neither: without them the SDK's environment, profile, " +
        'instance or task role',
      defaultText: "(the AWS SDK's chain)",
    }),
  EXPORT_S3_SECRET_ACCESS_KEY: z
    .string()
    .min(1)
    .optional()
    .meta({
      description:
        "with `s3`: the access key's secret; both keys or neither: without them the SDK's environment, profile, " +
        'instance or task role',
      defaultText: "(the AWS SDK's chain)",
    }),
  // AWS takes either style.
  EXPORT_S3_FORCE_PATH_STYLE: booleanFlag(true).meta({
    description: 'with `s3`: path-style URLs (`endpoint/bucket/key`), which most S3-compatible stores need',
  }),
  // S3 takes at least 5 MiB for every part but the last. Two are held per file being written.
  EXPORT_S3_PART_MB: z.coerce
    .number()
    .int()
    .min(5)
    .max(512)
    .default(8)
    .meta({ description: "with `s3`: the multipart upload's part size in MiB (5 to 512)" }),
};

type StorageEnv = z.output<z.ZodObject<typeof exportStorageEnv>>;

function s3Settings(e: StorageEnv & { EXPORT_S3_BUCKET: string }): S3StorageSettings {
  const { EXPORT_S3_ACCESS_KEY_ID: accessKeyId, EXPORT_S3_SECRET_ACCESS_KEY: secretAccessKey } = e;
  return {
    kind: 's3',
    endpoint: e.EXPORT_S3_ENDPOINT,
    region: e.EXPORT_S3_REGION,
    bucket: e.EXPORT_S3_BUCKET,
    prefix: e.EXPORT_S3_PREFIX,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: e.EXPORT_S3_FORCE_PATH_STYLE,
    partBytes: e.EXPORT_S3_PART_MB * 1024 * 1024,
  };
}

/** The settings of the chosen store; problems are reported on `ctx` under the variable's name. */
export function exportStorageSettings(e: StorageEnv, ctx: z.RefinementCtx) {
  if (e.EXPORT_STORAGE === 'filesystem') return { kind: 'filesystem' as const, dir: e.EXPORT_DIR };
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (!e.EXPORT_S3_ACCESS_KEY_ID !== !e.EXPORT_S3_SECRET_ACCESS_KEY) {
    issue(
      'EXPORT_S3_SECRET_ACCESS_KEY',
      'EXPORT_S3_ACCESS_KEY_ID and EXPORT_S3_SECRET_ACCESS_KEY go together',
    );
  }
  if (e.EXPORT_S3_BUCKET === undefined) {
    issue('EXPORT_S3_BUCKET', 'is required when EXPORT_STORAGE=s3');
    return z.NEVER;
  }
  return s3Settings({ ...e, EXPORT_S3_BUCKET: e.EXPORT_S3_BUCKET });
}

export type ExportStorageSettings = ReturnType<typeof exportStorageSettings>;

/** The store the settings name; for S3, with a socket pool of its own when one is given. */
export const exportFiles = (settings: ExportStorageSettings, pool?: SocketPool): ExportFiles =>
  settings.kind === 's3'
    ? s3ExportFiles(settings, s3Client(settings, pool))
    : filesystemExportFiles(settings.dir);
