-- Exporters take export jobs from this table, fairly across tenants (docs/exports.md "Fair share"): a running
-- attempt holds its job until `lease_until`, renewed with its progress, and a job whose attempt failed waits in the
-- queue until `not_before`. A job left running by an earlier exporter has no lease, so it is taken up again.
ALTER TABLE export_jobs ADD COLUMN lease_until timestamptz, ADD COLUMN not_before timestamptz;
-- The jobs an exporter may take, oldest first; each tenant's running ones are under export_jobs_in_flight.
CREATE INDEX export_jobs_queue ON export_jobs (accepted_at, id) WHERE status IN ('queued', 'running');
