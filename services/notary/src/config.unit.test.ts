import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('notary loadConfig', () => {
  it('applies the documented defaults (docs/integrity.md)', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8085,
      integrity: { logName: 'audit-trail.local', keyDir: '.data/integrity-keys' },
      checkpoints: { intervalMs: 60_000, every: 10_000 },
    });
  });

  it('names each variable it refuses', () => {
    expect(() => loadConfig({ NOTARY_PORT: 'x' })).toThrow(/NOTARY_PORT/);
    expect(() => loadConfig({ INTEGRITY_LOG_NAME: 'a b' })).toThrow(/INTEGRITY_LOG_NAME/);
    expect(() => loadConfig({ INTEGRITY_CHECKPOINT_EVERY: '0' })).toThrow(/INTEGRITY_CHECKPOINT_EVERY/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
  });
});
