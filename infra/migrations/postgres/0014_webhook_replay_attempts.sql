-- How a replay resumes after its holder is gone (docs/webhooks.md "Replays"). `partition` is the tenant's partition
-- of the audit topic when the replay began: `next_offset` and `end_offset` are offsets of that partition, even if
-- the topic's partitions change later. `attempts` counts the takes since the replay last got further; a replay taken
-- up 10 times without getting further fails.
ALTER TABLE webhook_replays ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE webhook_replays ADD COLUMN partition integer;
