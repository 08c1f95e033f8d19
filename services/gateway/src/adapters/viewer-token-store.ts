import type pg from 'pg';
import type { ApiKeyEnv, Scope } from '@audit/shared/api-keys';
import { inTransaction } from '@audit/shared/platform';
import type { Narrowing } from '../domain/narrowing.js';
import type { StoredViewerToken } from '../domain/viewer-token.js';

export interface NewViewerToken {
  id: string;
  env: ApiKeyEnv;
  tenantId: string;
  keyPrefix: string;
  scopes: Scope[];
  narrowedTo: Narrowing;
  frameOrigins: string[];
  secretHash: Buffer;
  expiresAt: Date;
}

/** Announces a token's creation or revocation (its audit event); the change commits only after it resolved. */
export type AnnounceViewerToken = () => Promise<void>;

// How long an expired token's row is kept: its id still finds its frame origins, so that an embedded page can say
// it expired instead of being refused by the browser.
const KEPT_AFTER_EXPIRY = '1 day';

/** Viewer tokens in Postgres (docs/viewer.md "Viewer tokens"). */
export function viewerTokenStore(pool: pg.Pool) {
  return {
    /** The token with what its key says now: one query on the primary key per request. */
    async find(id: string): Promise<StoredViewerToken | null> {
      const { rows } = await pool.query<StoredViewerToken>(
        `SELECT t.id, t.env, t.tenant_id, t.key_prefix, t.scopes, t.narrowed_to, t.frame_origins, t.secret_hash,
                t.created_at, t.expires_at, t.revoked_at, k.scopes AS key_scopes, k.revoked_at AS key_revoked_at
           FROM viewer_tokens t JOIN api_keys k ON k.prefix = t.key_prefix
          WHERE t.id = $1`,
        [id],
      );
      return rows[0] ?? null;
    },

    /** Stores the token once `announce` resolved; the tenant's tokens expired for a day go at the same time. */
    create(token: NewViewerToken, announce: AnnounceViewerToken): Promise<void> {
      return inTransaction(pool, async (db) => {
        await db.query(
          `DELETE FROM viewer_tokens WHERE tenant_id = $1 AND expires_at < now() - interval '${KEPT_AFTER_EXPIRY}'`,
          [token.tenantId],
        );
        await db.query(
          `INSERT INTO viewer_tokens
             (id, env, tenant_id, key_prefix, scopes, narrowed_to, frame_origins, secret_hash, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [
            token.id,
            token.env,
            token.tenantId,
            token.keyPrefix,
            token.scopes,
            JSON.stringify(token.narrowedTo),
            token.frameOrigins,
            token.secretHash,
            token.expiresAt,
          ],
        );
        await announce();
      });
    },

    /** Revokes the tenant's token: false when the tenant has no such token (or it is revoked already). */
    revoke(tenantId: string, id: string, announce: AnnounceViewerToken): Promise<boolean> {
      return inTransaction(pool, async (db) => {
        const { rowCount } = await db.query(
          `UPDATE viewer_tokens SET revoked_at = now() WHERE id = $1 AND tenant_id = $2 AND revoked_at IS NULL`,
          [id, tenantId],
        );
        if (rowCount !== 1) return false;
        await announce();
        return true;
      });
    },

    /** The origins that may frame the token's page; null for an id that names no token. */
    async frameOrigins(id: string): Promise<string[] | null> {
      const { rows } = await pool.query<{ frame_origins: string[] }>(
        'SELECT frame_origins FROM viewer_tokens WHERE id = $1',
        [id],
      );
      return rows[0]?.frame_origins ?? null;
    },
  };
}

export type ViewerTokenStore = ReturnType<typeof viewerTokenStore>;
