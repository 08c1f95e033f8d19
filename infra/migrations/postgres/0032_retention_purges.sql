-- The purge of events past a tenant's retention maximum (docs/retention.md "The purge"). A tenant's horizon is the
-- time before which its events not covered by a hold were purged: it only ever moves forward, is written before
-- the purge deletes anything, and the projector stores no event under it that no hold covers, so neither a
-- redelivery nor a replay brings a purged event back.
CREATE TABLE retention_horizons (
    tenant_id     text PRIMARY KEY CHECK (tenant_id ~ '^[A-Za-z0-9._-]{1,64}$'),
    purged_before bigint NOT NULL CHECK (purged_before >= 0),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- One row per purge run of a tenant: what it was asked, how it went, what it removed and what holds kept.
CREATE TABLE retention_purges (
    purge_id      uuid PRIMARY KEY,
    tenant_id     text NOT NULL CHECK (tenant_id ~ '^[A-Za-z0-9._-]{1,64}$'),
    purged_before bigint NOT NULL CHECK (purged_before >= 0),
    holds         integer NOT NULL CHECK (holds >= 0),
    status        text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
    purged        bigint CHECK (purged >= 0),
    kept          bigint CHECK (kept >= 0),
    error         text,
    started_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz,
    started_by    text NOT NULL,
    CHECK ((status = 'running') = (finished_at IS NULL))
);
CREATE INDEX retention_purges_by_tenant ON retention_purges (tenant_id, started_at DESC);

GRANT SELECT ON retention_horizons, retention_purges TO audit_gateway;
-- The projector's filter: the horizons, and the scopes of the holds in force that keep events under them (not
-- their reasons or who made them).
GRANT SELECT ON retention_horizons TO audit_projector;
GRANT SELECT (tenant_id, user_id, resource_id, patient_id, since, until, released_at) ON legal_holds TO audit_projector;
