import {
  formatViewerToken,
  generateViewerToken,
  hashSecret,
  type StoredApiKey,
} from '@audit/shared/api-keys';
import type { Narrowing } from '../domain/narrowing.js';
import type { StoredViewerToken } from '../domain/viewer-token.js';
import { STUB_PEPPER } from './stub-app-options.js';

/** A viewer token the key made, valid for an hour, with the key's scopes, held to `narrowedTo` when it names any. */
export function viewerTokenFor(key: StoredApiKey, narrowedTo: Narrowing = {}) {
  const token = generateViewerToken('live');
  const stored: StoredViewerToken = {
    id: token.id,
    env: 'live',
    tenant_id: key.tenant_id,
    key_prefix: key.prefix,
    scopes: key.scopes,
    narrowed_to: narrowedTo,
    frame_origins: [],
    secret_hash: hashSecret(token.secret, STUB_PEPPER),
    created_at: new Date(),
    expires_at: new Date(Date.now() + 3_600_000),
    revoked_at: null,
    key_scopes: key.scopes,
    key_revoked_at: null,
  };
  return { stored, bearer: formatViewerToken(token) };
}
