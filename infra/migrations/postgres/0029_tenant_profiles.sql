-- What the service says of a tenant to people outside it (docs/reports.md "Tenant names"): the name a patient
-- access report is headed with. Set by operators (`ops tenants set-name`), read by the gateway.
CREATE TABLE tenant_profiles (
    tenant_id    text PRIMARY KEY CHECK (tenant_id ~ '^[A-Za-z0-9._-]{1,64}$'),
    display_name text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 200),
    changed_at   timestamptz NOT NULL DEFAULT now(),
    changed_by   text NOT NULL
);

GRANT SELECT ON tenant_profiles TO audit_gateway;
