import type pg from 'pg';
import { apiKeysRepository, type StoredApiKey } from '@audit/shared';

export interface KeyStoreOptions {
  /** How long a lookup (found or not) is reused: bounds how long a revoked key keeps working. */
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

/**
 * Key lookups with a short-lived cache, so a request does not cost a Postgres round trip. Unknown prefixes are
 * cached too (a flood of random keys must not become a flood of queries), in a bounded map.
 */
export function cachedKeyStore(db: Pick<pg.Pool, 'query'>, options: KeyStoreOptions) {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { key: StoredApiKey | null; at: number }>();
  return async function findKey(prefix: string): Promise<StoredApiKey | null> {
    const hit = cache.get(prefix);
    if (hit && now() - hit.at < options.ttlMs) return hit.key;
    const key = await apiKeysRepository.find(db, prefix);
    cache.delete(prefix);
    if (cache.size >= options.maxEntries) cache.delete(cache.keys().next().value!);
    cache.set(prefix, { key, at: now() });
    return key;
  };
}
