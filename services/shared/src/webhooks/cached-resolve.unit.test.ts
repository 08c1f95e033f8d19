import { promises as dns, type LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { cachedResolve } from './cached-resolve.js';

type Record4 = { address: string; ttl: number };

/** A DNS server in memory: answers A records from `zone`, AAAA never; counts the questions. */
class ZoneResolver extends dns.Resolver {
  asked = 0;
  constructor(private readonly zone: Record<string, Record4[]>) {
    super();
  }
  override resolve4 = ((host: string) => {
    this.asked += 1;
    const records = this.zone[host];
    if (!records) return Promise.reject(Object.assign(new Error('no such name'), { code: 'ENOTFOUND' }));
    return Promise.resolve(records);
  }) as dns.Resolver['resolve4'];
  override resolve6 = (() =>
    Promise.reject(Object.assign(new Error('no AAAA'), { code: 'ENODATA' }))) as dns.Resolver['resolve6'];
}

const hostsFile: Record<string, string> = { 'siem.internal': '10.1.2.3' };
const lookup = ((
  host: string,
  options: { family?: number },
  callback: (err: Error | null, addresses?: LookupAddress[]) => void,
) => {
  const address = hostsFile[host];
  if (!address || options.family === 6)
    callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
  else callback(null, [{ address, family: 4 }]);
}) as unknown as typeof import('node:dns').lookup;

function setup(zone: Record<string, Record4[]>) {
  const resolver = new ZoneResolver(zone);
  return { resolver, resolve: cachedResolve({ timeoutMs: 1000, resolver, lookup }) };
}

describe('cachedResolve', () => {
  it('keeps an answer for its TTL: the DNS servers are asked once', async () => {
    const { resolver, resolve } = setup({ 'siem.example': [{ address: '93.184.216.34', ttl: 60 }] });
    expect(await resolve('siem.example')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(await resolve('siem.example')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(resolver.asked).toBe(1);
  });

  it('asks once for many concurrent questions about one name', async () => {
    const { resolver, resolve } = setup({ 'siem.example': [{ address: '93.184.216.34', ttl: 60 }] });
    await Promise.all(Array.from({ length: 20 }, () => resolve('siem.example')));
    expect(resolver.asked).toBe(1);
  });

  it('asks again once the TTL is over (a zero TTL is not kept)', async () => {
    const { resolver, resolve } = setup({ 'moving.example': [{ address: '93.184.216.35', ttl: 0 }] });
    await resolve('moving.example');
    await resolve('moving.example');
    expect(resolver.asked).toBe(2);
  });

  it('answers every address of the name', async () => {
    const { resolve } = setup({
      'two.example': [
        { address: '93.184.216.34', ttl: 60 },
        { address: '10.0.0.1', ttl: 60 },
      ],
    });
    expect((await resolve('two.example')).map((a) => a.address)).toEqual(['93.184.216.34', '10.0.0.1']);
  });

  it('falls back to the system lookup for a name the DNS servers do not know (the hosts file)', async () => {
    const { resolve } = setup({});
    expect(await resolve('siem.internal')).toEqual([{ address: '10.1.2.3', family: 4 }]);
  });

  it('rejects with ENOTFOUND when nobody knows the name', async () => {
    const { resolve } = setup({});
    await expect(resolve('nowhere.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
