import {
  parseApiKey,
  secretMatches,
  type ApiKeyEnv,
  type Scope,
  type StoredApiKey,
} from '@audit/shared/api-keys';
import { bearerToken } from '@audit/shared/platform';
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

/** Why a key was refused: for operators (metrics) only, never for the client, which gets one identical 401. */
export const AUTH_FAILURES = [
  'missing',
  'malformed',
  'wrong_env',
  'unknown_key',
  'wrong_secret',
  'revoked',
  'ip_not_allowed',
] as const;
export type AuthFailure = (typeof AUTH_FAILURES)[number];

async function check(
  authorization: string | undefined,
  ip: string,
  deps: AuthDeps,
): Promise<Principal | AuthFailure> {
  const presented = bearerToken(authorization);
  if (presented === null) return 'missing';
  const key = parseApiKey(presented);
  if (!key) return 'malformed';
  const stored = await deps.findKey(key.prefix);
  const matches = secretMatches(key.secret, stored?.secret_hash ?? null, deps.pepper);
  if (key.env !== deps.env) return 'wrong_env';
  if (!stored) return 'unknown_key';
  if (!matches) return 'wrong_secret';
  if (stored.env !== deps.env) return 'wrong_env';
  if (stored.revoked_at) return 'revoked';
  if (stored.ip_allow.length > 0 && !cidrSet(stored.ip_allow)(ip)) return 'ip_not_allowed';
  return { prefix: stored.prefix, tenantId: stored.tenant_id, scopes: new Set(stored.scopes) };
}

/**
 * The key's principal, or null for every way of failing (no header, wrong format or environment, unknown prefix,
 * wrong secret, revoked, client outside the allow-list), whose reason goes to `refused`: callers answer all of
 * them with one identical 401. A well-formed key always costs one lookup, one hash and one constant-time compare,
 * known prefix or not.
 */
export async function authenticate(
  authorization: string | undefined,
  ip: string,
  deps: AuthDeps,
  refused: (reason: AuthFailure) => void = () => undefined,
): Promise<Principal | null> {
  const result = await check(authorization, ip, deps);
  if (typeof result !== 'string') return result;
  refused(result);
  return null;
}
