-- Viewer tokens (docs/viewer.md "Viewer tokens"): short-lived bearer tokens a tenant's backend makes with its API
-- key for a browser, so that the key never reaches one. A token acts for the key that made it (its tenant, its rate
-- limits, at most its scopes, and not once it is revoked) and may be narrowed to a fixed filter. Only a keyed hash of
-- its secret is kept, as for keys.
CREATE TABLE viewer_tokens (
    id            text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{16}$'),
    env           text NOT NULL CHECK (env IN ('live', 'test')),
    tenant_id     text NOT NULL CHECK (tenant_id ~ '^[A-Za-z0-9._-]{1,64}$'),
    key_prefix    text NOT NULL REFERENCES api_keys (prefix),
    scopes        text[] NOT NULL CHECK (cardinality(scopes) > 0),
    narrowed_to   jsonb NOT NULL DEFAULT '{}',
    frame_origins text[] NOT NULL DEFAULT '{}',
    secret_hash   bytea NOT NULL CHECK (length(secret_hash) = 32),
    created_at    timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL,
    revoked_at    timestamptz,
    CHECK (expires_at > created_at)
);
-- Expired tokens are deleted a day after they end, tenant by tenant, when the tenant makes another.
CREATE INDEX viewer_tokens_tenant_expiry ON viewer_tokens (tenant_id, expires_at);

GRANT SELECT, INSERT, DELETE, UPDATE (revoked_at) ON viewer_tokens TO audit_gateway;
