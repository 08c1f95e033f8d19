import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey, type StoredApiKey } from '@audit/shared/api-keys';
import { storedKeyFor } from '@audit/shared/test-support';
import { authenticate } from './authenticate.js';

const PEPPER = 'pepper-0123456789abcdef0123456789abcdef';
const key = generateApiKey('live');
const text = formatApiKey(key);

const stored = (overrides: Partial<StoredApiKey> = {}) => storedKeyFor(key, PEPPER, overrides);

function deps(record: StoredApiKey | null) {
  const lookups: string[] = [];
  return {
    lookups,
    deps: {
      pepper: PEPPER,
      env: 'live' as const,
      findKey: async (prefix: string) => {
        lookups.push(prefix);
        return record;
      },
    },
  };
}

describe('authenticate', () => {
  it('returns the principal for a valid key, with the scheme in any case', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      expect(await authenticate(`${scheme} ${text}`, '127.0.0.1', deps(stored()).deps)).toEqual({
        prefix: key.prefix,
        tenantId: 'acme',
        scopes: new Set(['audit:read']),
      });
    }
  });

  it.each([
    ['no header', undefined, stored(), 'missing'],
    ['another scheme', `Basic ${text}`, stored(), 'missing'],
    ['a malformed key', 'Bearer svc_live_nothex', stored(), 'malformed'],
    ['the other environment', `Bearer ${text.replace('svc_live_', 'svc_test_')}`, stored(), 'wrong_env'],
    ['an unknown prefix', `Bearer ${text}`, null, 'unknown_key'],
    [
      'a wrong secret',
      `Bearer ${formatApiKey({ ...key, secret: generateApiKey('live').secret })}`,
      stored(),
      'wrong_secret',
    ],
    ['a revoked key', `Bearer ${text}`, stored({ revoked_at: new Date() }), 'revoked'],
    ['a stored key of the other environment', `Bearer ${text}`, stored({ env: 'test' }), 'wrong_env'],
    [
      'an address outside the allow-list',
      `Bearer ${text}`,
      stored({ ip_allow: ['203.0.113.0/24'] }),
      'ip_not_allowed',
    ],
  ])('refuses %s, telling why to the caller only', async (_case, header, record, reason) => {
    const reasons: string[] = [];
    expect(await authenticate(header, '127.0.0.1', deps(record).deps, (r) => reasons.push(r))).toBeNull();
    expect(reasons).toEqual([reason]);
  });

  it('accepts an address inside the allow-list, IPv4-mapped or not', async () => {
    const d = deps(stored({ ip_allow: ['203.0.113.0/24', '2001:db8::/32'] })).deps;
    expect(await authenticate(`Bearer ${text}`, '::ffff:203.0.113.9', d)).not.toBeNull();
    expect(await authenticate(`Bearer ${text}`, '2001:db8::7', d)).not.toBeNull();
  });

  it('looks a well-formed key up whether or not its prefix exists', async () => {
    const unknown = deps(null);
    await authenticate(`Bearer ${text}`, '127.0.0.1', unknown.deps);
    expect(unknown.lookups).toEqual([key.prefix]);
  });
});
