import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

const minimal = {
  API_KEY_PEPPER: 'p'.repeat(32),
  CURSOR_SECRET: 'c'.repeat(32),
  WEBHOOK_SECRET_KEY: 'ab'.repeat(32),
};

describe('gateway loadConfig', () => {
  it('applies the defaults and freezes the result', () => {
    const config = loadConfig(minimal);
    expect(config.port).toBe(8080);
    expect(config.metrics).toEqual({ host: '127.0.0.1', port: 9080 });
    expect(config.webhooks).toEqual({
      secretKey: 'ab'.repeat(32),
      allowCidrs: [],
      allowHttp: false,
      allowPorts: [
        [80, 80],
        [443, 443],
        [1024, 65535],
      ],
      testTimeoutMs: 10_000,
    });
    expect(Object.isFrozen(config.webhooks)).toBe(true);
    expect(loadConfig({ ...minimal, WEBHOOK_TEST_TIMEOUT_MS: '2500' }).webhooks.testTimeoutMs).toBe(2500);
  });

  it('limits export jobs and names their store: defaults, and values given', () => {
    const defaults = loadConfig(minimal);
    expect(defaults.exportJobLimits).toEqual({ inFlight: 3, maxWindowDays: 366 });
    expect(defaults.exportStorage).toEqual({ kind: 'filesystem', dir: '.data/exports' });
    const given = loadConfig({
      ...minimal,
      EXPORT_JOBS_IN_FLIGHT: '5',
      EXPORT_JOB_MAX_WINDOW_DAYS: '31',
      EXPORT_DIR: '/var/lib/audit/exports',
    });
    expect(given.exportJobLimits).toEqual({ inFlight: 5, maxWindowDays: 31 });
    expect(given.exportStorage).toEqual({ kind: 'filesystem', dir: '/var/lib/audit/exports' });
    // The S3 settings in full: services/shared/src/export-jobs/export-storage.unit.test.ts.
    expect(() => loadConfig({ ...minimal, EXPORT_STORAGE: 's3' })).toThrow(/EXPORT_S3_BUCKET/);
  });

  it('reads the webhook development openings', () => {
    const config = loadConfig({
      ...minimal,
      WEBHOOK_ALLOW_TARGET_CIDRS: '127.0.0.0/8, ::1',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PORTS: '443,8443',
    });
    expect(config.webhooks).toMatchObject({
      allowCidrs: ['127.0.0.0/8', '::1/128'],
      allowHttp: true,
      allowPorts: [
        [443, 443],
        [8443, 8443],
      ],
    });
  });

  it.each([
    [{ WEBHOOK_SECRET_KEY: undefined }, 'WEBHOOK_SECRET_KEY'],
    [{ WEBHOOK_SECRET_KEY: 'ab'.repeat(16) }, 'WEBHOOK_SECRET_KEY'],
    [{ WEBHOOK_ALLOW_TARGET_CIDRS: '127.0.0.0/33' }, 'WEBHOOK_ALLOW_TARGET_CIDRS'],
    [{ WEBHOOK_ALLOW_HTTP: 'yes' }, 'WEBHOOK_ALLOW_HTTP'],
    [{ WEBHOOK_ALLOW_PORTS: '22-0' }, 'WEBHOOK_ALLOW_PORTS'],
    [{ GATEWAY_METRICS_PORT: '70000' }, 'GATEWAY_METRICS_PORT'],
    [{ EXPORT_JOBS_IN_FLIGHT: '0' }, 'EXPORT_JOBS_IN_FLIGHT'],
    [{ EXPORT_JOBS_IN_FLIGHT: 'many' }, 'EXPORT_JOBS_IN_FLIGHT'],
    [{ EXPORT_JOB_MAX_WINDOW_DAYS: '-1' }, 'EXPORT_JOB_MAX_WINDOW_DAYS'],
    [{ EXPORT_JOB_MAX_WINDOW_DAYS: '1.5' }, 'EXPORT_JOB_MAX_WINDOW_DAYS'],
    [{ EXPORT_DIR: '' }, 'EXPORT_DIR'],
  ])('refuses %j, naming the variable', (change, name) => {
    expect(() => loadConfig({ ...minimal, ...change })).toThrow(name);
  });
});
