import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeysRepository, generateApiKey, type StoredApiKey } from '@audit/shared/api-keys';
import { migratePostgres } from '@audit/shared/migrations';
import { storedKeyFor } from '@audit/shared/test-support';
import { uniqueNames } from '../../../../test/support/names.js';
import { freshPostgres } from '../../../../test/support/postgres.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { directoryFirst, keyDirectory } from './key-directory.js';
import { cachedKeyStore } from './key-store.js';

const names = uniqueNames('key-directory');
const PEPPER = 'pepper-0123456789abcdef0123456789abcdef';
let db: Awaited<ReturnType<typeof freshPostgres>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await freshPostgres(names);
  await migratePostgres(db.url);
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

/** The gateway's key lookups over a pool that counts its queries. */
async function gatewayKeys() {
  const queries: string[] = [];
  const counted = { query: (sql: string, values: unknown[]) => (queries.push(sql), pool.query(sql, values)) };
  const store = cachedKeyStore(counted as never, { ttlMs: 3_600_000, maxKeys: 100, maxUnknown: 100 });
  const directory = keyDirectory({
    databaseUrl: db.url,
    logger: pino({ level: 'silent' }),
    changed: store.forget,
  });
  directory.start();
  const find = directoryFirst(directory, store.find);
  // Ready once it knows the existing keys: until then every prefix is looked up.
  await waitFor('the directory to know the existing keys', async () => {
    queries.length = 0;
    await find(generateApiKey('live').prefix);
    return queries.length === 0;
  });
  return { find, queries, stop: () => directory.stop() };
}

const insert = (overrides: Partial<StoredApiKey> = {}) =>
  apiKeysRepository.insert(pool, storedKeyFor(generateApiKey('live'), PEPPER, overrides));

describe('key lookups behind the key directory (real Postgres)', () => {
  it('refuses a flood of unknown prefixes without a single query on the pool', async () => {
    const keys = await gatewayKeys();
    try {
      const found = await Promise.all(
        Array.from({ length: 500 }, () => keys.find(generateApiKey('live').prefix)),
      );
      expect(found.every((k) => k === null)).toBe(true);
      expect(keys.queries).toEqual([]);
    } finally {
      await keys.stop();
    }
  });

  it('finds a key used the moment its insert committed, before any wait', async () => {
    const keys = await gatewayKeys();
    try {
      for (let i = 0; i < 20; i += 1) {
        const record = await insert();
        expect((await keys.find(record.prefix))?.prefix).toBe(record.prefix);
      }
    } finally {
      await keys.stop();
    }
  });

  it('sees a revocation at once, without waiting for the cached lookup to expire', async () => {
    const keys = await gatewayKeys();
    try {
      const record = await insert();
      expect((await keys.find(record.prefix))?.revoked_at).toBeNull();
      await apiKeysRepository.revoke(pool, record.prefix);
      await waitFor('the revocation', async () => (await keys.find(record.prefix))?.revoked_at != null);
    } finally {
      await keys.stop();
    }
  });
});
