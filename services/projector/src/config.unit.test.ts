import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('projector loadConfig', () => {
  it('applies defaults that match the local stack', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8082,
      groupId: 'audit-projector',
      clickhouse: { url: 'http://127.0.0.1:15123', database: 'audit' },
    });
  });

  it('inserts about once a second at most on a cluster, unless told otherwise', () => {
    expect(loadConfig({})).toMatchObject({ flushMs: 500, flushMinIntervalMs: 100 });
    expect(loadConfig({ CLICKHOUSE_CLUSTER: 'audit' })).toMatchObject({
      flushMs: 1000,
      flushMinIntervalMs: 1000,
    });
    expect(
      loadConfig({
        CLICKHOUSE_CLUSTER: 'audit',
        PROJECTOR_FLUSH_MS: '200',
        PROJECTOR_FLUSH_MIN_INTERVAL_MS: '0',
      }),
    ).toMatchObject({ flushMs: 200, flushMinIntervalMs: 0 });
  });

  it('refuses a session timeout below what the broker allows and a bad database name', () => {
    expect(() => loadConfig({ PROJECTOR_SESSION_TIMEOUT_MS: '1000' })).toThrow(
      /PROJECTOR_SESSION_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ CLICKHOUSE_DATABASE: 'x; DROP' })).toThrow(/CLICKHOUSE_DATABASE/);
  });
});
