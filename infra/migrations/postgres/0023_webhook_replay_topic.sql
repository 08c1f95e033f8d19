-- The generation of the audit topic a replay reads (docs/topic-growth.md): a window may span a growth, and the
-- replay goes through each generation in turn, oldest first. Null before it began, and for a replay that began
-- before the topic could grow: its partition is then the first generation's.
ALTER TABLE webhook_replays ADD COLUMN topic text;
