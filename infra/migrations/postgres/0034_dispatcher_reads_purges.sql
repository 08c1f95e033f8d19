-- The dispatcher delivers no event a retention purge removed, live or in a replay, deciding as the projector does
-- (docs/retention.md "What a replay stores"): it reads the tenants' horizons, the runs' marks and the holds' scopes
-- and times, and only those columns.
GRANT SELECT ON retention_horizons TO audit_dispatcher;
GRANT SELECT (tenant_id, purged_before, deleting_since) ON retention_purges TO audit_dispatcher;
GRANT SELECT (tenant_id, user_id, resource_id, patient_id, since, until, created_at, released_at) ON legal_holds
    TO audit_dispatcher;
