-- A terminal attempt's consequences (its dead letter and its count toward auto-disable) are taken once: the
-- attempt is marked settled in the transaction that counts it. A delivery redone after a crash between recording
-- its last attempt and settling it finds the mark absent and settles it then; one that finds it set does nothing.
ALTER TABLE webhook_delivery_attempts ADD COLUMN settled boolean NOT NULL DEFAULT false;
-- Terminal attempts recorded before this column were dead-lettered and counted already.
UPDATE webhook_delivery_attempts SET settled = true WHERE terminal;
