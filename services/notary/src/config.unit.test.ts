import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('notary loadConfig', () => {
  it('applies the documented defaults (docs/integrity.md)', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8085,
      groupId: 'audit-notary',
      sessionTimeoutMs: 30_000,
      integrity: { logName: 'audit-trail.local', keyDir: '.data/integrity-keys' },
      checkpoints: { intervalMs: 60_000, every: 10_000 },
      fetch: { minBytes: 8 * 1024 * 1024, maxWaitMs: 2000 },
    });
  });

  it('names each variable it refuses', () => {
    expect(() => loadConfig({ NOTARY_SESSION_TIMEOUT_MS: '1000' })).toThrow(/NOTARY_SESSION_TIMEOUT_MS/);
    expect(() => loadConfig({ NOTARY_PORT: 'x' })).toThrow(/NOTARY_PORT/);
    expect(() => loadConfig({ INTEGRITY_LOG_NAME: 'a b' })).toThrow(/INTEGRITY_LOG_NAME/);
    expect(() => loadConfig({ INTEGRITY_CHECKPOINT_EVERY: '0' })).toThrow(/INTEGRITY_CHECKPOINT_EVERY/);
    // Beyond what one partition counts toward it, a fetch's least could never be met by one tenant's backlog.
    expect(() => loadConfig({ NOTARY_FETCH_MIN_BYTES: String(8 * 1024 * 1024 + 1) })).toThrow(
      /NOTARY_FETCH_MIN_BYTES/,
    );
    // A fetch's wait is a pause in the heartbeats: at most a third of the session timeout.
    expect(() => loadConfig({ NOTARY_SESSION_TIMEOUT_MS: '6000', NOTARY_FETCH_MAX_WAIT_MS: '2001' })).toThrow(
      /NOTARY_FETCH_MAX_WAIT_MS: at most a third of NOTARY_SESSION_TIMEOUT_MS/,
    );
    expect(
      loadConfig({ NOTARY_SESSION_TIMEOUT_MS: '6000', NOTARY_FETCH_MAX_WAIT_MS: '2000' }).fetch.maxWaitMs,
    ).toBe(2000);
  });
});
