import { describe, expect, it } from 'vitest';
import { cidrSet, clientIp, normalizeIp } from './ip-match.js';

describe('cidrSet', () => {
  const inside = cidrSet(['10.0.0.0/8', '203.0.113.7/32', '2001:db8::/32']);

  it.each(['10.1.2.3', '::ffff:10.1.2.3', '203.0.113.7', '2001:db8::5'])('contains %s', (ip) => {
    expect(inside(ip)).toBe(true);
  });

  it.each(['11.0.0.1', '203.0.113.8', '2001:db9::1', 'not-an-ip', ''])('does not contain %j', (ip) => {
    expect(inside(ip)).toBe(false);
  });

  it('is empty without rules', () => {
    expect(cidrSet([])('10.0.0.1')).toBe(false);
  });
});

describe('clientIp', () => {
  const proxies = cidrSet(['127.0.0.1/32', '10.0.0.0/8']);

  it('is the socket peer when the peer is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(clientIp('198.51.100.9', '10.9.9.9', proxies)).toBe('198.51.100.9');
  });

  it('takes the right-most untrusted hop behind trusted proxies', () => {
    expect(clientIp('127.0.0.1', '6.6.6.6, 198.51.100.9, 10.0.0.5', proxies)).toBe('198.51.100.9');
    expect(clientIp('::ffff:127.0.0.1', '198.51.100.9', proxies)).toBe('198.51.100.9');
  });

  it('stops at a malformed hop rather than trusting what is left of it', () => {
    expect(clientIp('127.0.0.1', '198.51.100.9, garbage', proxies)).toBe('127.0.0.1');
  });

  it('normalizes IPv4-mapped addresses', () => {
    expect(normalizeIp('::FFFF:192.0.2.1')).toBe('192.0.2.1');
    expect(normalizeIp('2001:db8::1')).toBe('2001:db8::1');
  });
});
