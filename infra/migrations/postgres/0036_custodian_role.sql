-- The custodian runs the tenants' retention purges on a schedule (docs/retention.md "The schedule"). Its role
-- reads the policies and the holds, records the runs and the horizons, and expires the export jobs whose files a
-- purge removed: nothing of the keys, the trees or the webhooks (docs/operations.md "Database roles").
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'audit_custodian') THEN
    BEGIN
      CREATE ROLE audit_custodian NOLOGIN;
    -- Another database's migration made it at the same moment.
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
END
$$;

GRANT SELECT ON schema_migrations TO audit_custodian;
GRANT SELECT ON retention_policies TO audit_custodian;
GRANT SELECT (tenant_id, user_id, resource_id, patient_id, since, until, released_at) ON legal_holds
    TO audit_custodian;
GRANT SELECT, INSERT, UPDATE ON retention_horizons, retention_purges TO audit_custodian;
-- Of a job, what finds its file, never its filters.
GRANT SELECT (id, tenant_id, status, since_ms, format, accepted_at), UPDATE (status) ON export_jobs
    TO audit_custodian;
