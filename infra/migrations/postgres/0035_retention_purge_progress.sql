-- How far a purge run has got (docs/retention.md "The purge"): `ops retention status` and the API show it while
-- it runs, and where a failed run stopped. Deleting goes table by table of every generation, in rounds.
ALTER TABLE retention_purges
    ADD COLUMN phase text CHECK (phase IN ('waiting', 'deleting', 'checking', 'expiring')),
    ADD COLUMN round integer CHECK (round >= 1),
    ADD COLUMN tables_done integer CHECK (tables_done >= 0),
    ADD COLUMN tables integer CHECK (tables >= 0);
