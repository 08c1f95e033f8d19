-- Audit events, one row per event. Sorted tenant first, then time, then id: the list's total order.
-- ReplacingMergeTree is only a safety net (a server crash between the two inserts of one block);
-- the projector never inserts an event_id the by-id table already has.
-- Partitions are 30-day buckets of epoch ms: plain integers, independent of the server's time zone.
CREATE TABLE IF NOT EXISTS audit_events
(
    tenant_id String,
    ts Int64,
    event_id String,
    action String,
    user_id String,
    user_role String,
    resource_type String,
    resource_id String,
    fields_accessed String,
    phi_involved UInt8,
    source_ip String,
    user_agent String,
    justification String,
    success UInt8,
    details String,
    ingested_at Int64
)
ENGINE = ReplacingMergeTree
PARTITION BY intDiv(ts, 2592000000)
ORDER BY (tenant_id, ts, event_id)
SETTINGS index_granularity = 1024;

-- Finds one event by id without scanning the tenant, and tells the projector what is already stored.
-- Keyed by a 64-bit hash of the id: a narrow key column, so probing a batch of ids reads little;
-- event_id is kept to rule out hash collisions. Fine granules: each probe reads one 256-row granule.
CREATE TABLE IF NOT EXISTS audit_event_ids
(
    tenant_id String,
    id_hash UInt64,
    event_id String,
    ts Int64
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, id_hash, event_id)
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS audit_event_ids_mv TO audit_event_ids
AS SELECT tenant_id, cityHash64(event_id) AS id_hash, event_id, ts FROM audit_events;
