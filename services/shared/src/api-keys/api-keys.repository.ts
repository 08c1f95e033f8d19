import type pg from 'pg';
import type { ApiKeyEnv, Scope } from './api-key.js';

export interface ApiKeyRecord {
  prefix: string;
  env: ApiKeyEnv;
  tenant_id: string;
  scopes: Scope[];
  ip_allow: string[];
  label: string;
  rotated_from: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

export interface StoredApiKey extends ApiKeyRecord {
  secret_hash: Buffer;
}

export type NewApiKey = Omit<StoredApiKey, 'created_at' | 'revoked_at'>;

type Queryable = Pick<pg.ClientBase, 'query'>;

const PUBLIC_COLUMNS =
  'prefix, env, tenant_id, scopes, ip_allow::text[] AS ip_allow, label, rotated_from, created_at, revoked_at';

/** Announced at commit with the prefix of every key inserted, changed or deleted (postgres migration 0007). */
export const API_KEY_CHANGES_CHANNEL = 'api_key_changes';

export class PrefixTakenError extends Error {
  override name = 'PrefixTakenError';
}

/** Postgres refused a CIDR our parser let through (host bits set: 10.1.2.3/8). */
export class InvalidCidrError extends Error {
  override name = 'InvalidCidrError';
}

/** Postgres access for API keys; the secret hash is read only where a key is verified. */
export const apiKeysRepository = {
  async insert(db: Queryable, key: NewApiKey): Promise<ApiKeyRecord> {
    try {
      const { rows } = await db.query<ApiKeyRecord>(
        `INSERT INTO api_keys (prefix, env, tenant_id, scopes, ip_allow, label, secret_hash, rotated_from)
         VALUES ($1, $2, $3, $4, $5::cidr[], $6, $7, $8) RETURNING ${PUBLIC_COLUMNS}`,
        [
          key.prefix,
          key.env,
          key.tenant_id,
          key.scopes,
          key.ip_allow,
          key.label,
          key.secret_hash,
          key.rotated_from,
        ],
      );
      return rows[0]!;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === '23505') throw new PrefixTakenError(key.prefix);
      if (code === '22P02') throw new InvalidCidrError((err as Error).message);
      throw err;
    }
  },

  async list(db: Queryable, tenantId?: string): Promise<ApiKeyRecord[]> {
    const { rows } = await db.query<ApiKeyRecord>(
      `SELECT ${PUBLIC_COLUMNS} FROM api_keys WHERE ($1::text IS NULL OR tenant_id = $1) ORDER BY created_at, prefix`,
      [tenantId ?? null],
    );
    return rows;
  },

  /** Every prefix that exists, revoked ones included (they still authenticate to a 401 of their own kind). */
  async prefixes(db: Queryable): Promise<string[]> {
    const { rows } = await db.query<{ prefix: string }>('SELECT prefix FROM api_keys');
    return rows.map((r) => r.prefix);
  },

  /** `forUpdate` locks the row until the transaction ends (rotate must not race a revoke). */
  async find(db: Queryable, prefix: string, forUpdate = false): Promise<StoredApiKey | null> {
    const { rows } = await db.query<StoredApiKey>(
      `SELECT ${PUBLIC_COLUMNS}, secret_hash FROM api_keys WHERE prefix = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [prefix],
    );
    return rows[0] ?? null;
  },

  /** Marks the key revoked; null when it does not exist, the unchanged record when it was revoked already. */
  async revoke(db: Queryable, prefix: string): Promise<{ record: ApiKeyRecord; changed: boolean } | null> {
    const { rows } = await db.query<ApiKeyRecord>(
      `UPDATE api_keys SET revoked_at = now() WHERE prefix = $1 AND revoked_at IS NULL RETURNING ${PUBLIC_COLUMNS}`,
      [prefix],
    );
    if (rows[0]) return { record: rows[0], changed: true };
    const existing = await this.find(db, prefix);
    if (!existing) return null;
    const { secret_hash: _hash, ...record } = existing;
    return { record, changed: false };
  },
};
