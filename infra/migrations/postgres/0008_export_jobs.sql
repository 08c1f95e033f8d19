-- Export jobs (docs/exports.md). A row holds the whole request as accepted, so that the exporter can publish it
-- again should the first request record be lost before it was sent, and the job's state as the exporter moves
-- it. `attempts` fences the exporter: every update of a running job names its attempt, so an attempt that lost
-- its job to a newer one can no longer change it.
CREATE TABLE export_jobs (
    id             uuid PRIMARY KEY,
    tenant_id      text NOT NULL CHECK (tenant_id ~ '^[A-Za-z0-9._-]{1,64}$'),
    format         text NOT NULL CHECK (format IN ('ndjson', 'csv', 'parquet')),
    filters        jsonb NOT NULL,
    since_ms       bigint NOT NULL,
    until_ms       bigint NOT NULL CHECK (until_ms > since_ms),
    accepted_at    timestamptz NOT NULL,
    requested_by   text NOT NULL,
    status         text NOT NULL DEFAULT 'queued'
                   CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'expired')),
    attempts       integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    started_at     timestamptz,
    finished_at    timestamptz,
    rows_written   bigint NOT NULL DEFAULT 0,
    bytes_written  bigint NOT NULL DEFAULT 0,
    rows_expected  bigint,
    manifest       jsonb,
    error_code     text,
    error_message  text,
    expires_at     timestamptz
);

-- The tenant's jobs newest first (the list), and its jobs in flight (the limit).
CREATE INDEX export_jobs_tenant ON export_jobs (tenant_id, accepted_at DESC, id DESC);
CREATE INDEX export_jobs_in_flight ON export_jobs (tenant_id) WHERE status IN ('queued', 'running');
-- Files to delete when their lifetime ends.
CREATE INDEX export_jobs_expiry ON export_jobs (expires_at) WHERE status = 'succeeded';
