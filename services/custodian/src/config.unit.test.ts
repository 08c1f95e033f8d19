import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('custodian loadConfig', () => {
  it('applies the documented defaults (docs/retention.md "The schedule")', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8086,
      schedule: { everyMs: 86_400_000, retryMs: 3_600_000, checkMs: 600_000 },
      storage: { kind: 'filesystem' },
    });
  });

  it('names each variable it refuses', () => {
    expect(() => loadConfig({ CUSTODIAN_PORT: 'x' })).toThrow(/CUSTODIAN_PORT/);
    expect(() => loadConfig({ RETENTION_PURGE_EVERY_HOURS: '0' })).toThrow(/RETENTION_PURGE_EVERY_HOURS/);
    expect(() => loadConfig({ RETENTION_PURGE_CHECK_MS: '-1' })).toThrow(/RETENTION_PURGE_CHECK_MS/);
    expect(() => loadConfig({ CLICKHOUSE_NODE_URLS: 'http://127.0.0.1:1,not a url' })).toThrow(
      /CLICKHOUSE_NODE_URLS/,
    );
  });

  it('on a ClickHouse cluster, needs every node\'s address (docs/retention.md "On a cluster")', () => {
    expect(() => loadConfig({ CLICKHOUSE_CLUSTER: 'audit' })).toThrow(/CLICKHOUSE_NODE_URLS.*every node/);
    const nodes = 'http://127.0.0.1:22101, http://127.0.0.1:22102,';
    expect(loadConfig({ CLICKHOUSE_CLUSTER: 'audit', CLICKHOUSE_NODE_URLS: nodes })).toMatchObject({
      clickhouse: { cluster: 'audit' },
      nodeUrls: ['http://127.0.0.1:22101', 'http://127.0.0.1:22102'],
    });
    expect(loadConfig({}).nodeUrls).toEqual([]);
  });
});
