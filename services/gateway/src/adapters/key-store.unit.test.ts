import { describe, expect, it } from 'vitest';
import type { StoredApiKey } from '@audit/shared/api-keys';
import { cachedKeyStore } from './key-store.js';

function fakeDb(existing: string[]) {
  const queries: string[] = [];
  const db = {
    query: async (_sql: string, params: unknown[]) => {
      const prefix = params[0] as string;
      queries.push(prefix);
      return { rows: existing.includes(prefix) ? [{ prefix } as unknown as StoredApiKey] : [] };
    },
  };
  return { db: db as never, queries };
}

describe('cachedKeyStore', () => {
  it('reuses a lookup for ttlMs counted from when it was asked, then asks again', async () => {
    let t = 0;
    const { db, queries } = fakeDb(['aaaaaaaa']);
    const { find } = cachedKeyStore(db, { ttlMs: 1000, maxKeys: 10, maxUnknown: 10, now: () => t });
    await find('aaaaaaaa');
    t = 999;
    await find('aaaaaaaa');
    expect(queries).toHaveLength(1);
    t = 1000;
    await find('aaaaaaaa');
    expect(queries).toHaveLength(2);
  });

  it('shares one query between concurrent lookups of the same prefix', async () => {
    const { db, queries } = fakeDb([]);
    const { find } = cachedKeyStore(db, { ttlMs: 1000, maxKeys: 10, maxUnknown: 10, now: () => 0 });
    await Promise.all([find('bbbbbbbb'), find('bbbbbbbb'), find('bbbbbbbb')]);
    expect(queries).toEqual(['bbbbbbbb']);
  });

  it('never lets unknown prefixes evict known keys', async () => {
    const { db, queries } = fakeDb(['aaaaaaaa']);
    const { find } = cachedKeyStore(db, { ttlMs: 60_000, maxKeys: 10, maxUnknown: 2, now: () => 0 });
    expect(await find('aaaaaaaa')).not.toBeNull();
    for (const junk of ['00000001', '00000002', '00000003', '00000004']) expect(await find(junk)).toBeNull();
    await find('aaaaaaaa');
    expect(queries.filter((q) => q === 'aaaaaaaa')).toHaveLength(1);
  });

  it('looks a key up again once it is forgotten (a change was announced)', async () => {
    const { db, queries } = fakeDb(['aaaaaaaa']);
    const store = cachedKeyStore(db, { ttlMs: 60_000, maxKeys: 10, maxUnknown: 10, now: () => 0 });
    await store.find('aaaaaaaa');
    await store.find('cccccccc');
    store.forget('aaaaaaaa');
    store.forget('cccccccc');
    await store.find('aaaaaaaa');
    await store.find('cccccccc');
    expect(queries).toEqual(['aaaaaaaa', 'cccccccc', 'aaaaaaaa', 'cccccccc']);
  });

  it('does not keep a lookup that was in flight when its key changed', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const queries: string[] = [];
    const db = {
      query: async (_sql: string, params: unknown[]) => {
        queries.push(params[0] as string);
        await gate;
        return { rows: [{ prefix: params[0] } as unknown as StoredApiKey] };
      },
    };
    const store = cachedKeyStore(db as never, { ttlMs: 60_000, maxKeys: 10, maxUnknown: 10, now: () => 0 });
    const before = store.find('aaaaaaaa');
    store.forget('aaaaaaaa');
    release();
    await before;
    await store.find('aaaaaaaa');
    expect(queries).toEqual(['aaaaaaaa', 'aaaaaaaa']);
  });
});
