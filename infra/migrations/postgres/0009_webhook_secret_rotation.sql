-- Secret rotation with overlap (docs/webhooks.md "Secrets"). A rotation keeps the secret it replaces, sealed
-- like the current one, until `previous_secret_expires_at`: deliveries until then carry a signature by each. A
-- second rotation within the overlap replaces the previous secret. `version` counts the endpoint's changes:
-- the dispatcher holds a tenant's partition, on reading a change's audit event, until it has that version.
ALTER TABLE webhook_endpoints
    ADD COLUMN previous_secret_sealed bytea,
    ADD COLUMN previous_secret_expires_at timestamptz,
    ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1),
    ADD CONSTRAINT webhook_endpoints_previous_secret
        CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL));
