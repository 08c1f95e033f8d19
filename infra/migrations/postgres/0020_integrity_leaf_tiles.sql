-- A tree's leaves are stored in tiles (docs/integrity.md "The tree store"): a row per run of consecutive leaves of
-- one tree, their hashes (32 bytes each), event ids (16) and event times (8, big-endian epoch ms) each packed into
-- one bytea, with the run's least and greatest time. A batch of the audit topic then costs Postgres a row per
-- tenant and one index entry per leaf (the event's id, in integrity_leaf_events: an event is a leaf once, and is
-- found by its id), where a row per leaf had three: its index, its id, its time. Measured: the notary and its
-- Postgres spent about 27 µs an event, against 17 for the least a notary needs (docs/benchmarks.md).
--
-- The values are never compressed (STORAGE EXTERNAL): compressing hashes and ids gains nothing and costs the
-- notary's Postgres, and a proof reading one leaf's hash reads only the chunk that holds it. A tile's times lie
-- within 10 minutes of each other (leaf-tiles.ts TILE_MAX_SPAN_MS), so that the tiles holding a window's leaves
-- begin at most 10 minutes before it: one range of the index by time.
CREATE TABLE integrity_tiles (
    tree_id     bigint NOT NULL,
    first_index bigint NOT NULL CHECK (first_index >= 0),
    leaf_hashes bytea NOT NULL CHECK (length(leaf_hashes) BETWEEN 32 AND 32 * 1024 AND length(leaf_hashes) % 32 = 0),
    event_ids   bytea NOT NULL CHECK (length(event_ids) * 2 = length(leaf_hashes)),
    -- Null only for a leaf appended before leaves had times (migration 0017), then alone in its tile.
    times       bytea CHECK (length(times) * 4 = length(leaf_hashes)),
    min_ts      bigint,
    max_ts      bigint,
    CONSTRAINT integrity_tiles_times_check CHECK (
        CASE WHEN times IS NULL THEN min_ts IS NULL AND max_ts IS NULL AND length(leaf_hashes) = 32
             ELSE min_ts IS NOT NULL AND max_ts IS NOT NULL AND max_ts - min_ts BETWEEN 0 AND 600000 END)
);
ALTER TABLE integrity_tiles
    ALTER COLUMN leaf_hashes SET STORAGE EXTERNAL,
    ALTER COLUMN event_ids SET STORAGE EXTERNAL,
    ALTER COLUMN times SET STORAGE EXTERNAL;

CREATE TABLE integrity_leaf_events (
    tree_id    bigint NOT NULL,
    event_id   uuid NOT NULL,
    leaf_index bigint NOT NULL CHECK (leaf_index >= 0)
);

-- The leaves there are moved into tiles of up to 256 (runs by index / 256), when such a run has no leaf missing and
-- is all timed and within 10 minutes; every other leaf (untimed, or of a run that is not) gets a tile of its own.
-- The indexes are made after the rows.
CREATE TEMP TABLE tiled_runs ON COMMIT DROP AS
SELECT tree_id, leaf_index / 256 AS run
FROM integrity_leaves
GROUP BY 1, 2
HAVING count(ts) = count(*) AND max(ts) - min(ts) <= 600000 AND max(leaf_index) - min(leaf_index) + 1 = count(*);

INSERT INTO integrity_tiles (tree_id, first_index, leaf_hashes, event_ids, times, min_ts, max_ts)
SELECT l.tree_id, min(l.leaf_index),
    string_agg(l.leaf_hash, ''::bytea ORDER BY l.leaf_index),
    string_agg(uuid_send(l.event_id), ''::bytea ORDER BY l.leaf_index),
    string_agg(int8send(l.ts), ''::bytea ORDER BY l.leaf_index),
    min(l.ts), max(l.ts)
FROM integrity_leaves l JOIN tiled_runs r ON r.tree_id = l.tree_id AND r.run = l.leaf_index / 256
GROUP BY l.tree_id, l.leaf_index / 256;

INSERT INTO integrity_tiles (tree_id, first_index, leaf_hashes, event_ids, times, min_ts, max_ts)
SELECT l.tree_id, l.leaf_index, l.leaf_hash, uuid_send(l.event_id), int8send(l.ts), l.ts, l.ts
FROM integrity_leaves l
WHERE NOT EXISTS (SELECT 1 FROM tiled_runs r WHERE r.tree_id = l.tree_id AND r.run = l.leaf_index / 256);

INSERT INTO integrity_leaf_events (tree_id, event_id, leaf_index)
SELECT tree_id, event_id, leaf_index FROM integrity_leaves ORDER BY 1, 2;

ALTER TABLE integrity_tiles ADD PRIMARY KEY (tree_id, first_index);
-- max_ts a key column, not an included one: a scan then skips the tiles of the 10 minutes before a window that end
-- before it in the index, without reading their rows.
CREATE INDEX integrity_tiles_by_time ON integrity_tiles (tree_id, min_ts, first_index, max_ts)
    WHERE min_ts IS NOT NULL;
ALTER TABLE integrity_leaf_events ADD PRIMARY KEY (tree_id, event_id);

DROP TABLE integrity_leaves;
