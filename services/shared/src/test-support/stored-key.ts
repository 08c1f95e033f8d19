import type { ParsedApiKey } from '../api-keys/api-key.js';
import { hashSecret } from '../api-keys/api-key.js';
import type { StoredApiKey } from '../api-keys/api-keys.repository.js';

/** The stored form of `key`, as the repository returns it; override what the test is about. */
export function storedKeyFor(
  key: ParsedApiKey,
  pepper: string,
  overrides: Partial<StoredApiKey> = {},
): StoredApiKey {
  return {
    prefix: key.prefix,
    env: key.env,
    tenant_id: 'acme',
    scopes: ['audit:read'],
    ip_allow: [],
    label: '',
    rotated_from: null,
    created_at: new Date(),
    revoked_at: null,
    secret_hash: hashSecret(key.secret, pepper),
    ...overrides,
  };
}
