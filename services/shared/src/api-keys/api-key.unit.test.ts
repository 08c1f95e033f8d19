import { describe, expect, it } from 'vitest';
import { formatApiKey, generateApiKey, hashSecret, parseApiKey, secretMatches } from './api-key.js';
import { parseCidr } from '../platform/net/cidr.js';

const PEPPER = 'pepper-0123456789abcdef0123456789abcdef';

describe('API keys', () => {
  it('generates keys of the documented shape, 50 characters, that parse back', () => {
    const key = generateApiKey('live');
    const text = formatApiKey(key);
    expect(text).toMatch(/^svc_live_[0-9a-f]{8}_[0-9a-f]{32}$/);
    expect(text).toHaveLength(50);
    expect(parseApiKey(text)).toEqual(key);
  });

  it.each([
    '',
    'svc_live_0123abcd_0123456789abcdef0123456789abcde',
    'svc_live_0123abcd_0123456789abcdef0123456789abcdef0',
    'svc_live_0123ABCD_0123456789abcdef0123456789abcdef',
    'svc_prod_0123abcd_0123456789abcdef0123456789abcdef',
    'svc_live_0123abc_0123456789abcdef0123456789abcdef0',
    'svc_live_0123abcd-0123456789abcdef0123456789abcdef',
    ' svc_live_0123abcd_0123456789abcdef0123456789abcdef',
    'svc_live_0123abcd_0123456789abcdef0123456789abcdef\n',
  ])('refuses %j', (text) => {
    expect(parseApiKey(text)).toBeNull();
  });

  it('matches only the right secret with the right pepper, and never an unknown prefix', () => {
    const key = generateApiKey('test');
    const stored = hashSecret(key.secret, PEPPER);
    expect(secretMatches(key.secret, stored, PEPPER)).toBe(true);
    expect(secretMatches(generateApiKey('test').secret, stored, PEPPER)).toBe(false);
    expect(secretMatches(key.secret, stored, `${PEPPER}x`)).toBe(false);
    expect(secretMatches(key.secret, null, PEPPER)).toBe(false);
    expect(stored.toString('hex')).not.toContain(key.secret);
  });
});

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['203.0.113.7', '203.0.113.7/32'],
    ['2001:db8::/32', '2001:db8::/32'],
    ['::1', '::1/128'],
    ['0.0.0.0/0', '0.0.0.0/0'],
  ])('accepts %s', (text, normalized) => {
    expect(parseCidr(text)).toBe(normalized);
  });

  it.each([
    '10.0.0.0/33',
    '2001:db8::/129',
    'fe80::1%eth0',
    'example.com/8',
    '10.0.0.0/8/1',
    '10.0.0.0/-1',
    '10.0.0/8',
    '',
  ])('refuses %j', (text) => {
    expect(parseCidr(text)).toBeNull();
  });
});
