import type pg from 'pg';
import { apiKeysRepository, type StoredApiKey } from '@audit/shared/api-keys';
import { CappedMap } from '@audit/shared/platform';

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
  // Counts changes: a lookup that began before one may have read the key as it was, and is not kept.
  let changes = 0;

  const lookUp = async (prefix: string): Promise<StoredApiKey | null> => {
    const askedAt = now();
    const changesBefore = changes;
    const key = await apiKeysRepository.find(db, prefix);
    if (changes !== changesBefore) return key;
    if (key) {
      unknown.delete(prefix);
      keys.set(prefix, { key, at: askedAt });
    } else {
      keys.delete(prefix);
      unknown.set(prefix, askedAt);
    }
    return key;
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
        const started = lookUp(prefix).finally(() => {
          if (pending.get(prefix) === started) pending.delete(prefix);
        });
        inFlight = started;
        pending.set(prefix, inFlight);
      }
      return inFlight;
    },
    /** Whether this gateway has found the key since it last changed, however long ago: never a query. */
    seen: (prefix: string): boolean => keys.has(prefix),
    /** The key changed (revoked, created): the next request looks it up again. */
    forget(prefix: string): void {
      changes += 1;
      pending.delete(prefix);
      keys.delete(prefix);
      unknown.delete(prefix);
    },
  };
}

export type KeyStore = ReturnType<typeof cachedKeyStore>;
