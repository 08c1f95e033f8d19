import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { allowList } from './target-policy.js';
import type { Resolve } from './webhook-target.js';
import { checkedAddresses, guardedLookup } from './guarded-connector.js';

const allowed = allowList(['127.0.0.2/32']);
const answering =
  (...addresses: string[]): Resolve =>
  async () =>
    addresses.map((address) => ({ address, family: 4 }));
const noResolve: Resolve = async () => {
  throw new Error('a literal must not be resolved');
};

describe('checkedAddresses', () => {
  it('checks a literal as itself, without resolving it', async () => {
    expect(await checkedAddresses('[2606:4700::1111]', allowed, noResolve)).toEqual([
      { address: '2606:4700::1111', family: 6 },
    ]);
    await expect(checkedAddresses('10.0.0.1', allowed, noResolve)).rejects.toThrow(
      'refused target: 10.0.0.1 (private)',
    );
  });

  it('refuses a name when any of its addresses is refused', async () => {
    await expect(
      checkedAddresses('x.test', allowed, answering('93.184.216.34', '169.254.169.254')),
    ).rejects.toMatchObject({
      code: 'ERR_REFUSED_TARGET',
      message: 'refused target: 169.254.169.254 (link-local (cloud metadata))',
    });
  });

  it('refuses an answer that is not an IP address, which net would resolve again', async () => {
    await expect(checkedAddresses('x.test', allowed, answering('internal.example'))).rejects.toThrow(
      'refused target: internal.example (not an IP address)',
    );
  });

  it('fails a name without addresses as not found', async () => {
    await expect(checkedAddresses('x.test', allowed, answering())).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });

  it('takes an address an operator opened, with its family recomputed', async () => {
    expect(await checkedAddresses('x.test', allowed, answering('127.0.0.2', '2606:4700::1111'))).toEqual([
      { address: '127.0.0.2', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
  });
});

describe('guardedLookup', () => {
  const lookup = (resolve: Resolve, all: boolean) =>
    new Promise<[unknown, string | LookupAddress[], number | undefined]>((done) =>
      guardedLookup(allowed, resolve)('x.test', { all }, (error, address, family) =>
        done([error, address, family]),
      ),
    );

  it('hands net every checked address, or the first one', async () => {
    const resolve = answering('127.0.0.2', '93.184.216.34');
    expect(await lookup(resolve, true)).toEqual([
      null,
      [
        { address: '127.0.0.2', family: 4 },
        { address: '93.184.216.34', family: 4 },
      ],
      undefined,
    ]);
    expect(await lookup(resolve, false)).toEqual([null, '127.0.0.2', 4]);
  });

  it('hands net an error, and no address, when one is refused', async () => {
    const [error, address] = await lookup(answering('127.0.0.2', '127.0.0.1'), true);
    expect(error).toMatchObject({ code: 'ERR_REFUSED_TARGET' });
    expect(address).toBe('');
  });
});
