import { describe, expect, it } from 'vitest';
import { generateViewerToken, hashSecret } from '@audit/shared/api-keys';
import { checkViewerToken, type StoredViewerToken } from './viewer-token.js';

const PEPPER = 'pepper-0123456789abcdef0123456789abcdef';
const NOW = Date.parse('2026-11-30T12:00:00Z');
const token = generateViewerToken('live');

const stored = (overrides: Partial<StoredViewerToken> = {}): StoredViewerToken => ({
  id: token.id,
  env: 'live',
  tenant_id: 'acme',
  key_prefix: '0a1b2c3d',
  scopes: ['audit:read', 'webhooks:write'],
  narrowed_to: { user_id: 'u-1' },
  frame_origins: [],
  secret_hash: hashSecret(token.secret, PEPPER),
  created_at: new Date(NOW - 60_000),
  expires_at: new Date(NOW + 60_000),
  revoked_at: null,
  key_scopes: ['audit:read', 'webhooks:write'],
  key_revoked_at: null,
  ...overrides,
});
const check = (record: StoredViewerToken | null, presented = token, now = NOW) =>
  checkViewerToken(presented, record, { pepper: PEPPER, env: 'live', now });

describe('checkViewerToken', () => {
  it("grants the key's tenant and rate limits, the token's narrowing and its time", () => {
    expect(check(stored())).toEqual({
      tenantId: 'acme',
      keyPrefix: '0a1b2c3d',
      tokenId: token.id,
      scopes: ['audit:read', 'webhooks:write'],
      narrowedTo: { user_id: 'u-1' },
      expiresAt: NOW + 60_000,
    });
  });

  it('grants only the scopes the key still has', () => {
    expect(check(stored({ key_scopes: ['audit:read'] }))).toMatchObject({ scopes: ['audit:read'] });
  });

  it.each([
    ['an unknown id', null, token, 'unknown_key'],
    ['a wrong secret', stored(), { ...token, secret: generateViewerToken('live').secret }, 'wrong_secret'],
    ['the other environment', stored(), { ...token, env: 'test' as const }, 'wrong_env'],
    ['a revoked token', stored({ revoked_at: new Date(NOW - 1) }), token, 'revoked'],
    ['a token whose key was revoked', stored({ key_revoked_at: new Date(NOW - 1) }), token, 'revoked'],
    ['a token at its expiry', stored({ expires_at: new Date(NOW) }), token, 'expired'],
  ])('refuses %s', (_case, record, presented, reason) => {
    expect(check(record, presented)).toBe(reason);
  });

  it('tells expiry only to the holder of the secret', () => {
    const expired = stored({ expires_at: new Date(NOW - 1) });
    expect(check(expired, { ...token, secret: generateViewerToken('live').secret })).toBe('wrong_secret');
  });
});
