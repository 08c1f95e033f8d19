import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

const minimal = { WEBHOOK_SECRET_KEY: 'ab'.repeat(32) };

describe('dispatcher loadConfig', () => {
  it("defaults to the spec's schedule, jitter, timeout and threshold", () => {
    const config = loadConfig(minimal);
    expect(config.retry).toEqual({
      delaysMs: [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000],
      jitter: 0.2,
    });
    expect(config.timeoutMs).toBe(10_000);
    expect(config.autoDisableAfter).toBe(10);
    expect(Object.isFrozen(config.retry.delaysMs)).toBe(true);
  });

  it('keeps delivery attempts 30 days and lets a Retry-After hold a retry back 24 h by default', () => {
    const config = loadConfig(minimal);
    expect(config.attemptRetentionDays).toBe(30);
    expect(config.retryAfterMaxMs).toBe(86_400_000);
  });

  it('takes another retention and Retry-After cap', () => {
    const config = loadConfig({
      ...minimal,
      WEBHOOK_ATTEMPT_RETENTION_DAYS: '1',
      WEBHOOK_RETRY_AFTER_MAX: '90m',
    });
    expect(config.attemptRetentionDays).toBe(1);
    expect(config.retryAfterMaxMs).toBe(5_400_000);
  });

  it('takes a compressed schedule for tests', () => {
    const config = loadConfig({
      ...minimal,
      WEBHOOK_RETRY_DELAYS: '200ms,200ms,200ms,200ms,200ms',
      WEBHOOK_RETRY_JITTER: '0',
    });
    expect(config.retry).toEqual({ delaysMs: [200, 200, 200, 200, 200], jitter: 0 });
  });

  it.each([
    [{ WEBHOOK_RETRY_DELAYS: '1m,5m,30m,2h,12h,1d' }, 'WEBHOOK_RETRY_DELAYS'],
    [{ WEBHOOK_RETRY_DELAYS: '1m,5m,30m,2h,12h,24h' }, 'WEBHOOK_RETRY_DELAYS'],
    [{ WEBHOOK_RETRY_JITTER: '0.9' }, 'WEBHOOK_RETRY_JITTER'],
    [{ WEBHOOK_SECRET_KEY: undefined }, 'WEBHOOK_SECRET_KEY'],
    [{ WEBHOOK_AUTO_DISABLE_AFTER: '0' }, 'WEBHOOK_AUTO_DISABLE_AFTER'],
    [{ WEBHOOK_ATTEMPT_RETENTION_DAYS: '0' }, 'WEBHOOK_ATTEMPT_RETENTION_DAYS'],
    [{ WEBHOOK_ATTEMPT_RETENTION_DAYS: '1.5' }, 'WEBHOOK_ATTEMPT_RETENTION_DAYS'],
    [{ WEBHOOK_RETRY_AFTER_MAX: '0s' }, 'WEBHOOK_RETRY_AFTER_MAX'],
    [{ WEBHOOK_RETRY_AFTER_MAX: '1h,2h' }, 'WEBHOOK_RETRY_AFTER_MAX'],
    [{ WEBHOOK_RETRY_AFTER_MAX: '1d' }, 'WEBHOOK_RETRY_AFTER_MAX'],
  ])('refuses %j, naming the variable', (change, name) => {
    expect(() => loadConfig({ ...minimal, ...change })).toThrow(name);
  });
});
