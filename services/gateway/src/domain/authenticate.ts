import {
  isViewerToken,
  parseApiKey,
  parseViewerToken,
  secretMatches,
  type ApiKeyEnv,
  type Scope,
  type StoredApiKey,
} from '@audit/shared/api-keys';
import { bearerToken } from '@audit/shared/platform';
import { cidrSet } from './ip-match.js';
import type { Narrowing } from './narrowing.js';
import { checkViewerToken, type StoredViewerToken } from './viewer-token.js';

export interface Principal {
  /** The API key's prefix; for a viewer token, the prefix of the key that made it, whose rate limits it shares. */
  prefix: string;
  tenantId: string;
  scopes: ReadonlySet<Scope>;
  /** Present when a viewer token authenticated the request (docs/viewer.md "Viewer tokens"). */
  viewer?: { tokenId: string; narrowedTo: Narrowing; expiresAt: number };
}

export interface AuthDeps {
  findKey(prefix: string): Promise<StoredApiKey | null>;
  pepper: string;
  env: ApiKeyEnv;
  /** Where viewer tokens are found; without it, none is accepted. */
  viewerTokens?: ViewerTokenDeps;
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
  'expired',
] as const;
export type AuthFailure = (typeof AUTH_FAILURES)[number];

export interface ViewerTokenDeps {
  findViewerToken(id: string): Promise<StoredViewerToken | null>;
  now(): number;
}

async function checkViewer(
  presented: string,
  deps: AuthDeps,
  tokens: ViewerTokenDeps,
): Promise<Principal | AuthFailure> {
  const token = parseViewerToken(presented);
  if (!token) return 'malformed';
  const grant = checkViewerToken(token, await tokens.findViewerToken(token.id), {
    ...deps,
    now: tokens.now(),
  });
  if (typeof grant === 'string') return grant;
  return {
    prefix: grant.keyPrefix,
    tenantId: grant.tenantId,
    scopes: new Set(grant.scopes),
    viewer: { tokenId: grant.tokenId, narrowedTo: grant.narrowedTo, expiresAt: grant.expiresAt },
  };
}

async function check(
  authorization: string | undefined,
  ip: string,
  deps: AuthDeps,
): Promise<Principal | AuthFailure> {
  const presented = bearerToken(authorization);
  if (presented === null) return 'missing';
  // A viewer token is made for a browser, wherever it is: the key's address allow-list is not its.
  if (isViewerToken(presented)) {
    return deps.viewerTokens ? checkViewer(presented, deps, deps.viewerTokens) : 'unknown_key';
  }
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
 * The key's (or viewer token's) principal, or null for every way of failing (no header, wrong format or
 * environment, unknown prefix, wrong secret, revoked, client outside the allow-list, expired), whose reason goes to
 * `refused`: callers answer all of them but an expired viewer token with one identical 401. A well-formed key
 * always costs one lookup, one hash and one constant-time compare, known prefix or not.
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
