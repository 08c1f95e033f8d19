-- Where each partition of the audit topic has been appended to the trees up to (docs/integrity.md "Who appends").
-- The projector appends a batch of a partition and moves its position in one transaction, and appends only a batch
-- that begins at or before the position: a batch redone adds nothing, and no record is ever skipped, whichever
-- process held the partition before (a notary of before this migration, a projector with the trees off).
CREATE TABLE integrity_positions (
    topic       text   NOT NULL,
    partition   int    NOT NULL CHECK (partition >= 0),
    next_offset bigint NOT NULL CHECK (next_offset >= 0),
    PRIMARY KEY (topic, partition)
);
