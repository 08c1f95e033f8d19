-- What the projector needs to decide as each purge run did (docs/retention.md "What a replay stores"): when a run
-- began deleting (a run that failed before it removed nothing), and when each hold was made, so that a hold made
-- after a run keeps nothing that run removed, in a replay too.
ALTER TABLE retention_purges ADD COLUMN deleting_since timestamptz;
-- Runs made before this decided from their start: each moved its horizon and deleted right after.
UPDATE retention_purges SET deleting_since = started_at;

GRANT SELECT (tenant_id, purged_before, deleting_since) ON retention_purges TO audit_projector;
GRANT SELECT (created_at) ON legal_holds TO audit_projector;
