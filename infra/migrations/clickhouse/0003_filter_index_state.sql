-- Which generations' filter index and summary hold every event of their events table (docs/architecture.md,
-- "Read path"): until its generation is listed here, the reader does not use them. The tables themselves are
-- made per generation by the migrator and by `ops replay projection` (one definition, in the code).
CREATE TABLE IF NOT EXISTS filter_index_ready
(
    generation UInt32,
    at Int64
)
ENGINE = MergeTree
ORDER BY generation;

-- Partitions of a generation's events that `ops backfill filter-index` has copied into its filter index: a
-- backfill that stopped resumes with the partitions not listed.
CREATE TABLE IF NOT EXISTS filter_index_backfill
(
    generation UInt32,
    partition Int64,
    events UInt64,
    at Int64
)
ENGINE = MergeTree
ORDER BY (generation, partition);
