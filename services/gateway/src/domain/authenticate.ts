import {
  bearerToken,
  parseApiKey,
  secretMatches,
  type ApiKeyEnv,
  type Scope,
  type StoredApiKey,
} from '@audit/shared';
import { cidrSet } from './ip-match.js';

export interface Principal {
  prefix: string;
  tenantId: string;
  scopes: ReadonlySet<Scope>;
}

export interface AuthDeps {
  findKey(prefix: string): Promise<StoredApiKey | null>;
  pepper: string;
  env: ApiKeyEnv;
}

/**
 * The key's principal, or null for every way of failing (no header, wrong format or environment, unknown prefix,
 * wrong secret, revoked, client outside the allow-list): callers answer all of them with one identical 401.
 * A well-formed key always costs one lookup, one hash and one constant-time compare, known prefix or not.
 */
export async function authenticate(
  authorization: string | undefined,
  ip: string,
  deps: AuthDeps,
): Promise<Principal | null> {
  const presented = bearerToken(authorization);
  const key = presented === null ? null : parseApiKey(presented);
  if (!key) return null;
  const stored = await deps.findKey(key.prefix);
  const matches = secretMatches(key.secret, stored?.secret_hash ?? null, deps.pepper);
  if (!matches || !stored || key.env !== deps.env || stored.env !== deps.env || stored.revoked_at)
    return null;
  if (stored.ip_allow.length > 0 && !cidrSet(stored.ip_allow)(ip)) return null;
  return { prefix: stored.prefix, tenantId: stored.tenant_id, scopes: new Set(stored.scopes) };
}
