-- Signed checkpoints of the tenants' trees (docs/integrity.md "Checkpoints"), and the keys that sign them. A key's
-- private half is never here: it is a file in the notary's INTEGRITY_KEY_DIR. One key is active (signs new
-- checkpoints); retired keys stay, published, so that every checkpoint ever made can be verified.
CREATE TABLE integrity_keys (
    name         text PRIMARY KEY,
    public_key   bytea NOT NULL CHECK (length(public_key) = 32),
    verifier_key text NOT NULL UNIQUE,
    status       text NOT NULL CHECK (status IN ('active', 'retired')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    created_by   text NOT NULL,
    retired_at   timestamptz
);
CREATE UNIQUE INDEX integrity_keys_one_active ON integrity_keys (status) WHERE status = 'active';

-- One checkpoint per tenant and tree size; `note` is the signed note exactly as served.
CREATE TABLE integrity_checkpoints (
    tenant_id text NOT NULL,
    tree_size bigint NOT NULL CHECK (tree_size > 0),
    root_hash bytea NOT NULL CHECK (length(root_hash) = 32),
    made_at   bigint NOT NULL,
    key_name  text NOT NULL REFERENCES integrity_keys (name),
    note      text NOT NULL,
    PRIMARY KEY (tenant_id, tree_size)
);

-- What the latest checkpoint covers, and since when leaves have waited for the next one (the checkpoint cadence
-- and its lag).
ALTER TABLE integrity_trees
    ADD COLUMN signed_size     bigint NOT NULL DEFAULT 0,
    ADD COLUMN signed_at       bigint NOT NULL DEFAULT 0,
    ADD COLUMN unsigned_since  bigint;
CREATE INDEX integrity_trees_unsigned ON integrity_trees (unsigned_since) WHERE unsigned_since IS NOT NULL;
