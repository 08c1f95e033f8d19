import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('notary loadConfig', () => {
  it('applies the documented defaults (docs/integrity.md)', () => {
    expect(loadConfig({})).toMatchObject({ port: 8085, groupId: 'audit-notary', sessionTimeoutMs: 30_000 });
  });

  it('names each variable it refuses', () => {
    expect(() => loadConfig({ NOTARY_SESSION_TIMEOUT_MS: '1000' })).toThrow(/NOTARY_SESSION_TIMEOUT_MS/);
    expect(() => loadConfig({ NOTARY_PORT: 'x' })).toThrow(/NOTARY_PORT/);
  });
});
