-- A tenant's retention policy and legal holds (docs/retention.md). No row in retention_policies is the default
-- policy: kept at least six years, no maximum. Holds are never deleted: a released one keeps who released it and
-- why. Each change is written by the gateway (or an operator through `ops`) together with its audit event.
CREATE TABLE retention_policies (
    tenant_id  text PRIMARY KEY CHECK (tenant_id ~ '^[A-Za-z0-9._-]{1,64}$'),
    min_days   integer NOT NULL CHECK (min_days BETWEEN 1 AND 36500),
    max_days   integer CHECK (max_days IS NULL OR (max_days >= min_days AND max_days <= 36500)),
    version    integer NOT NULL CHECK (version > 0),
    changed_at timestamptz NOT NULL DEFAULT now(),
    changed_by text NOT NULL
);

-- A hold covers the tenant's events that match every column it sets (user, resource, patient, window); a column
-- left null matches every event.
CREATE TABLE legal_holds (
    hold_id        uuid PRIMARY KEY,
    tenant_id      text NOT NULL CHECK (tenant_id ~ '^[A-Za-z0-9._-]{1,64}$'),
    reason         text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
    user_id        text,
    resource_id    text,
    patient_id     text,
    since          bigint,
    until          bigint,
    -- To the millisecond, as the API shows it and a page's cursor carries it: the next page starts exactly there.
    created_at     timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
    created_by     text NOT NULL,
    released_at    timestamptz,
    released_by    text,
    release_reason text CHECK (length(release_reason) BETWEEN 1 AND 500),
    CHECK (since IS NULL OR until IS NULL OR since < until),
    CHECK ((released_at IS NULL) = (released_by IS NULL) AND (released_at IS NULL) = (release_reason IS NULL))
);
CREATE INDEX legal_holds_by_tenant ON legal_holds (tenant_id, created_at DESC, hold_id DESC);
CREATE INDEX legal_holds_active ON legal_holds (tenant_id) WHERE released_at IS NULL;

GRANT SELECT, INSERT, UPDATE ON retention_policies TO audit_gateway;
GRANT SELECT, INSERT ON legal_holds TO audit_gateway;
GRANT UPDATE (released_at, released_by, release_reason) ON legal_holds TO audit_gateway;
