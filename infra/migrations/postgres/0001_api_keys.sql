-- API keys, minted and revoked by operators only (npm run ops -- keys ...). The secret part is never stored:
-- only its HMAC-SHA-256 under a server-side pepper. The prefix is the lookup key.
CREATE TABLE api_keys (
    prefix       text PRIMARY KEY CHECK (prefix ~ '^[0-9a-f]{8}$'),
    env          text NOT NULL CHECK (env IN ('live', 'test')),
    tenant_id    text NOT NULL CHECK (tenant_id ~ '^[A-Za-z0-9._-]{1,64}$'),
    scopes       text[] NOT NULL CHECK (cardinality(scopes) > 0),
    ip_allow     cidr[] NOT NULL DEFAULT '{}',
    label        text NOT NULL DEFAULT '',
    secret_hash  bytea NOT NULL CHECK (length(secret_hash) = 32),
    rotated_from text REFERENCES api_keys (prefix),
    created_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz
);

CREATE INDEX api_keys_tenant ON api_keys (tenant_id);
