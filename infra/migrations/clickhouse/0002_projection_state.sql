-- The projection's generations (`ops replay projection`). Generation 1 is audit_events / audit_event_ids;
-- generation N > 1 is audit_events_gN / audit_event_ids_gN. One row per change; the newest row is the state
-- (none: generation 1 live). Phases: live (reads and writes on `live`); build (projectors also replay the audit
-- topic into `target`); pause (writes to `live` held until `until`); drain (replay consumers stop); then live
-- again on `target`.
CREATE TABLE IF NOT EXISTS projection_state
(
    changed_at Int64,
    phase String,
    live UInt32,
    target UInt32,
    until Int64,
    changed_by String
)
ENGINE = MergeTree
ORDER BY changed_at;

-- Projector processes confirming a phase (paused: no write to the live generation in flight; drained: their
-- replay consumer stopped), by consumer group member.
CREATE TABLE IF NOT EXISTS projection_acks
(
    at Int64,
    target UInt32,
    phase String,
    member String
)
ENGINE = MergeTree
ORDER BY (target, phase, member);
