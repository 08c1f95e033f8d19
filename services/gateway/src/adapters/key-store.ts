import type pg from 'pg';
import { apiKeysRepository, CappedMap, type StoredApiKey } from '@audit/shared';

export interface KeyStoreOptions {
  /** How long a lookup is reused, counted from when it was asked: bounds how long a revoked key keeps working. */
  ttlMs: number;
  maxKeys: number;
  maxUnknown: number;
  now?: () => number;
}

/**
 * Key lookups with a short-lived cache, so a request does not cost a Postgres round trip. Unknown prefixes are
 * remembered in a separate bounded map, so a flood of random keys can neither evict live keys nor turn into a
 * flood of queries for the same prefix; concurrent lookups of one prefix share one query.
 */
export function cachedKeyStore(db: Pick<pg.Pool, 'query'>, options: KeyStoreOptions) {
  const now = options.now ?? Date.now;
  const keys = new CappedMap<string, { key: StoredApiKey; at: number }>(options.maxKeys);
  const unknown = new CappedMap<string, number>(options.maxUnknown);
  const pending = new Map<string, Promise<StoredApiKey | null>>();

  const lookUp = async (prefix: string): Promise<StoredApiKey | null> => {
    const askedAt = now();
    try {
      const key = await apiKeysRepository.find(db, prefix);
      if (key) {
        unknown.delete(prefix);
        keys.set(prefix, { key, at: askedAt });
      } else {
        keys.delete(prefix);
        unknown.set(prefix, askedAt);
      }
      return key;
    } finally {
      pending.delete(prefix);
    }
  };

  return {
    find(prefix: string): Promise<StoredApiKey | null> {
      const t = now();
      const known = keys.get(prefix);
      if (known && t - known.at < options.ttlMs) return Promise.resolve(known.key);
      const missedAt = unknown.get(prefix);
      if (missedAt !== undefined && t - missedAt < options.ttlMs) return Promise.resolve(null);
      let inFlight = pending.get(prefix);
      if (!inFlight) {
        inFlight = lookUp(prefix);
        pending.set(prefix, inFlight);
      }
      return inFlight;
    },
    /** The key changed (revoked, created): the next request looks it up again. */
    forget(prefix: string): void {
      keys.delete(prefix);
      unknown.delete(prefix);
    },
  };
}

export type KeyStore = ReturnType<typeof cachedKeyStore>;
