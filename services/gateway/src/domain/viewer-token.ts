import { secretMatches, type ApiKeyEnv, type ParsedViewerToken, type Scope } from '@audit/shared/api-keys';
import type { Narrowing } from './narrowing.js';

/** A viewer token as stored, with what the key that made it says now. */
export interface StoredViewerToken {
  id: string;
  env: ApiKeyEnv;
  tenant_id: string;
  key_prefix: string;
  scopes: Scope[];
  narrowed_to: Narrowing;
  frame_origins: string[];
  secret_hash: Buffer;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  key_scopes: Scope[];
  key_revoked_at: Date | null;
}

export type ViewerTokenFailure = 'wrong_env' | 'unknown_key' | 'wrong_secret' | 'revoked' | 'expired';

/** What a valid viewer token may do: the key's tenant and rate limits, the scopes both it and the key still have. */
export interface ViewerGrant {
  tenantId: string;
  keyPrefix: string;
  tokenId: string;
  scopes: Scope[];
  narrowedTo: Narrowing;
  expiresAt: number;
}

/**
 * Checks a presented viewer token against its row (or none). The secret is compared in constant time whether or not
 * the row exists, as for keys. A token dies with its key: revoked, or its key revoked. Expiry is told apart only
 * once the secret matched (TokenExpiredError).
 */
export function checkViewerToken(
  presented: ParsedViewerToken,
  stored: StoredViewerToken | null,
  deps: { pepper: string; env: ApiKeyEnv; now: number },
): ViewerGrant | ViewerTokenFailure {
  const matches = secretMatches(presented.secret, stored?.secret_hash ?? null, deps.pepper);
  if (presented.env !== deps.env) return 'wrong_env';
  if (!stored) return 'unknown_key';
  if (!matches) return 'wrong_secret';
  if (stored.env !== deps.env) return 'wrong_env';
  if (stored.revoked_at || stored.key_revoked_at) return 'revoked';
  if (stored.expires_at.getTime() <= deps.now) return 'expired';
  return {
    tenantId: stored.tenant_id,
    keyPrefix: stored.key_prefix,
    tokenId: stored.id,
    scopes: stored.scopes.filter((scope) => stored.key_scopes.includes(scope)),
    narrowedTo: stored.narrowed_to,
    expiresAt: stored.expires_at.getTime(),
  };
}
