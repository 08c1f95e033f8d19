-- The filter index's shape (its dimensions and columns) follows the code: each shape has tables of its own
-- (projection-tables.ts FILTER_INDEX_SHAPE), built beside the previous shape's, which the previous version's
-- services read until the new one is complete. These record, per generation and shape, that the index is complete
-- and a backfill's progress; filter_index_ready and filter_index_backfill (0003) are the previous version's.
CREATE TABLE IF NOT EXISTS filter_index_shape_ready
(
    generation UInt32,
    shape UInt32,
    at Int64
)
ENGINE = MergeTree
ORDER BY (generation, shape);

CREATE TABLE IF NOT EXISTS filter_index_shape_backfill
(
    generation UInt32,
    shape UInt32,
    partition Int64,
    events UInt64,
    at Int64
)
ENGINE = MergeTree
ORDER BY (generation, shape, partition);
