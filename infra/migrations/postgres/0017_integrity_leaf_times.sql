-- Each leaf's event time, from the audit topic like the leaf itself, so that the leaves of a window of time can be
-- shown with their proof (docs/integrity.md "Window proofs") in pages, in time order. Leaves appended before this
-- migration have none until a notary reads their events again (docs/operations.md "Integrity").
ALTER TABLE integrity_leaves ADD COLUMN ts bigint;
CREATE INDEX integrity_leaves_by_time ON integrity_leaves (tenant_id, ts, leaf_index) WHERE ts IS NOT NULL;
