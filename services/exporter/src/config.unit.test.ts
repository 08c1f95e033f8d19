import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('exporter loadConfig', () => {
  it('applies the documented defaults (docs/exports.md)', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8084,
      groupId: 'audit-exporter',
      projectorGroupId: 'audit-projector',
      storage: { kind: 'filesystem', dir: '.data/exports' },
      concurrency: 4,
      reads: 2,
      runningPerTenant: 2,
      pollMs: 1000,
      jobs: { chunkRows: 50_000, maxAttempts: 5, fileTtlMs: 168 * 3_600_000, leaseMs: 30_000 },
    });
  });

  it('names each variable it refuses', () => {
    expect(() => loadConfig({ EXPORT_JOB_CHUNK_ROWS: '0' })).toThrow(/EXPORT_JOB_CHUNK_ROWS/);
    expect(() => loadConfig({ EXPORTER_SESSION_TIMEOUT_MS: '1000' })).toThrow(/EXPORTER_SESSION_TIMEOUT_MS/);
    expect(() => loadConfig({ EXPORT_DIR: '' })).toThrow(/EXPORT_DIR/);
    expect(() => loadConfig({ EXPORT_STORAGE: 's3' })).toThrow(/EXPORT_S3_BUCKET/);
  });
});
