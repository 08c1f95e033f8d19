import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseEnv } from '../platform/config/env.js';
import { exportStorageEnv, exportStorageSettings } from './export-storage.js';

const schema = z.object(exportStorageEnv).transform((e, ctx) => exportStorageSettings(e, ctx));
const load = (env: Record<string, string>) => parseEnv('test', schema, env);
const S3 = { EXPORT_STORAGE: 's3', EXPORT_S3_BUCKET: 'audit-exports' };

describe('export storage settings', () => {
  it('is a local directory by default', () => {
    expect(load({})).toEqual({ kind: 'filesystem', dir: '.data/exports' });
  });

  it('takes an S3-compatible store with its endpoint, bucket, prefix and keys', () => {
    const settings = load({
      ...S3,
      EXPORT_S3_ENDPOINT: 'http://127.0.0.1:15990',
      EXPORT_S3_PREFIX: 'tenants/exports/',
      EXPORT_S3_ACCESS_KEY_ID: 'id',
      EXPORT_S3_SECRET_ACCESS_KEY: 'secret',
      EXPORT_S3_PART_MB: '16',
    });
    expect(settings).toEqual({
      kind: 's3',
      endpoint: 'http://127.0.0.1:15990',
      region: 'us-east-1',
      bucket: 'audit-exports',
      prefix: 'tenants/exports/',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      forcePathStyle: true,
      partBytes: 16 * 1024 * 1024,
    });
  });

  it("leaves the credentials to the AWS SDK's own chain when none are given", () => {
    expect(load(S3)).toMatchObject({ kind: 's3', endpoint: undefined, credentials: undefined });
  });

  it.each([
    [{ EXPORT_STORAGE: 's3' }, 'EXPORT_S3_BUCKET: is required when EXPORT_STORAGE=s3'],
    [{ ...S3, EXPORT_S3_ACCESS_KEY_ID: 'id' }, 'EXPORT_S3_SECRET_ACCESS_KEY'],
    [{ ...S3, EXPORT_S3_BUCKET: 'Not_A_Bucket' }, 'EXPORT_S3_BUCKET: must be an S3 bucket name'],
    [{ ...S3, EXPORT_S3_PREFIX: '/exports/' }, 'EXPORT_S3_PREFIX'],
    [{ ...S3, EXPORT_S3_PREFIX: 'a b/' }, 'EXPORT_S3_PREFIX'],
    [{ ...S3, EXPORT_S3_ENDPOINT: 'ftp://host' }, 'EXPORT_S3_ENDPOINT'],
    [{ ...S3, EXPORT_S3_PART_MB: '4' }, 'EXPORT_S3_PART_MB'],
    [{ EXPORT_STORAGE: 'gcs' }, 'EXPORT_STORAGE'],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => load(env)).toThrow(message);
  });

  it('never puts a secret into an error message', () => {
    expect(() => load({ ...S3, EXPORT_S3_SECRET_ACCESS_KEY: 'hunter2-secret' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});
