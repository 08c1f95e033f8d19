-- Webhook endpoints (decisions.md "Webhooks"). The secret is stored only sealed (AES-256-GCM under
-- WEBHOOK_SECRET_KEY, bound to the endpoint id and tenant); it never exists here in plain text.
CREATE TABLE webhook_endpoints (
    id                   text PRIMARY KEY CHECK (id ~ '^wh_[0-9a-f]{8}$'),
    tenant_id            text NOT NULL CHECK (tenant_id ~ '^[A-Za-z0-9._-]{1,64}$'),
    url                  text NOT NULL CHECK (length(url) <= 2048),
    event_filter         text[] NOT NULL CHECK (cardinality(event_filter) <= 50),
    description          text NOT NULL CHECK (length(description) <= 500),
    secret_sealed        bytea NOT NULL,
    active               boolean NOT NULL DEFAULT true,
    created_at           timestamptz NOT NULL DEFAULT now(),
    disabled_at          timestamptz,
    consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
    last_delivery_at     timestamptz
);

CREATE INDEX webhook_endpoints_tenant ON webhook_endpoints (tenant_id, created_at, id);

-- One row per delivery attempt; deleted with its endpoint (spec: DELETE cascades to the delivery history).
CREATE TABLE webhook_delivery_attempts (
    id           bigserial PRIMARY KEY,
    endpoint_id  text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id     uuid NOT NULL,
    attempt      smallint NOT NULL CHECK (attempt >= 1),
    attempted_at timestamptz NOT NULL,
    succeeded    boolean NOT NULL,
    terminal     boolean NOT NULL DEFAULT false,
    status_code  smallint,
    error        text,
    latency_ms   integer NOT NULL CHECK (latency_ms >= 0),
    replay       boolean NOT NULL DEFAULT false
);

CREATE INDEX webhook_delivery_attempts_endpoint ON webhook_delivery_attempts (endpoint_id, attempted_at);
