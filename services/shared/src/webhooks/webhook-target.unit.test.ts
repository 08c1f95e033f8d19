import { describe, expect, it } from 'vitest';
import { allowList, DEFAULT_WEBHOOK_PORTS, parsePortRanges } from './target-policy.js';
import { checkTarget, parseWebhookUrl, type Resolve } from './webhook-target.js';

const strict = { allowHttp: false, allowed: allowList([]), ports: DEFAULT_WEBHOOK_PORTS };
const answers =
  (table: Record<string, string[]>): Resolve =>
  async (host) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
const check = async (text: string, table: Record<string, string[]> = {}, rules = strict) => {
  const url = parseWebhookUrl(text, rules);
  if (!url.ok) return url;
  return checkTarget(url.value, rules, answers(table));
};

describe('parseWebhookUrl', () => {
  it.each([
    ['http://siem.example.com/hook', 'must use https'],
    ['ftp://siem.example.com/hook', 'must use https'],
    ['https://user:pw@siem.example.com/hook', 'must not contain user information'],
    ['https://user@siem.example.com/hook', 'must not contain user information'],
    ['siem.example.com/hook', 'must be an absolute URL'],
    [`https://siem.example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
    ['https://siem.example.com:22/hook', 'must use a port of 80, 443, 1024-65535'],
    ['https://siem.example.com:1023/hook', 'must use a port of 80, 443, 1024-65535'],
  ])('refuses %s', (text, reason) => {
    expect(parseWebhookUrl(text, strict)).toEqual({ ok: false, reason });
  });

  it('takes the ports the operator allows, a URL without one by its scheme', () => {
    for (const text of [
      'https://siem.example.com/',
      'https://siem.example.com:8443/',
      'https://s.example:65535/',
    ])
      expect(parseWebhookUrl(text, strict).ok).toBe(true);
    const only8443 = { ...strict, ports: parsePortRanges('8443')! };
    expect(parseWebhookUrl('https://siem.example.com/', only8443)).toEqual({
      ok: false,
      reason: 'must use a port of 8443',
    });
    expect(parseWebhookUrl('https://siem.example.com:8443/', only8443).ok).toBe(true);
  });

  it('takes plain http only where the operator allows it', () => {
    expect(
      parseWebhookUrl('http://siem.example.com/', { allowHttp: true, ports: DEFAULT_WEBHOOK_PORTS }).ok,
    ).toBe(true);
  });
});

describe('checkTarget', () => {
  it.each([
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0x7f000001/',
    'https://0x7f.1/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[0:0:0:0:0:ffff:a9fe:a9fe]/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fd00:ec2::254]/',
    'https://10.0.0.1:8443/',
    'https://0.0.0.0/',
    'https://[::]/',
  ])('refuses the literal %s in any encoding', async (text) => {
    const result = await check(text);
    expect(result.ok).toBe(false);
  });

  it('refuses a name that resolves to a refused address, even among public ones', async () => {
    expect(await check('https://internal.example.com/', { 'internal.example.com': ['10.1.2.3'] })).toEqual({
      ok: false,
      reason: 'host internal.example.com is or resolves to 10.1.2.3, a refused private address',
    });
    const mixed = await check('https://mixed.example.com/', {
      'mixed.example.com': ['93.184.215.14', '::1'],
    });
    expect(mixed.ok).toBe(false);
  });

  it('refuses a name that does not resolve', async () => {
    expect(await check('https://nowhere.example.com/')).toEqual({
      ok: false,
      reason: 'host nowhere.example.com could not be resolved',
    });
  });

  it('returns every address of a public name', async () => {
    expect(
      await check('https://siem.example.com/', { 'siem.example.com': ['93.184.215.14', '2606:2800::1'] }),
    ).toEqual({ ok: true, value: ['93.184.215.14', '2606:2800::1'] });
  });

  it('lets an allowed development range through, and nothing else', async () => {
    const dev = { allowHttp: true, allowed: allowList(['127.0.0.0/8']), ports: DEFAULT_WEBHOOK_PORTS };
    expect(await check('http://127.0.0.1:9999/hook', {}, dev)).toEqual({ ok: true, value: ['127.0.0.1'] });
    expect((await check('http://[::1]:9999/hook', {}, dev)).ok).toBe(false);
  });
});
