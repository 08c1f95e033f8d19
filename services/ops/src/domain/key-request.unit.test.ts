import { describe, expect, it } from 'vitest';
import { parseKeyRequest } from './key-request.js';

describe('parseKeyRequest', () => {
  it('normalizes scopes and CIDRs', () => {
    expect(
      parseKeyRequest({
        tenant: 'acme',
        scopes: 'audit:read, audit:read,webhooks:write',
        'ip-allow': '10.0.0.0/8,::1',
      }),
    ).toEqual({
      ok: true,
      request: {
        tenant: 'acme',
        scopes: ['audit:read', 'webhooks:write'],
        ipAllow: ['10.0.0.0/8', '::1/128'],
        label: '',
      },
    });
  });

  it('lists every problem', () => {
    const result = parseKeyRequest({
      tenant: 'bad tenant',
      scopes: 'audit:read,admin',
      'ip-allow': '10.0.0.0/40',
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toEqual([
        '--tenant is required: 1..64 of [A-Za-z0-9._-]',
        'unknown scope: admin',
        'not an IPv4/IPv6 CIDR: 10.0.0.0/40',
      ]);
    }
  });

  it('requires tenant and scopes', () => {
    const result = parseKeyRequest({});
    expect(result.ok || result.errors).toHaveLength(2);
  });
});
