-- Each tenant's Merkle tree (docs/integrity.md "The tree store"), written only by the notary, one transaction per
-- batch of the audit topic: the leaves in order with the event each one is (an event is a leaf once), the hashes
-- of the complete subtrees of every eighth level (256, 65,536, ... leaves) that proofs are made from, and the
-- tree's size and right edge (the hashes of the complete subtrees its size is made of, largest first, 32 bytes
-- each) that the next leaves are appended to.
CREATE TABLE integrity_trees (
    tenant_id  text PRIMARY KEY,
    size       bigint NOT NULL DEFAULT 0 CHECK (size >= 0),
    frontier   bytea NOT NULL DEFAULT ''::bytea CHECK (length(frontier) % 32 = 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE integrity_leaves (
    tenant_id  text NOT NULL,
    leaf_index bigint NOT NULL CHECK (leaf_index >= 0),
    event_id   uuid NOT NULL,
    leaf_hash  bytea NOT NULL CHECK (length(leaf_hash) = 32),
    PRIMARY KEY (tenant_id, leaf_index),
    UNIQUE (tenant_id, event_id)
);

CREATE TABLE integrity_subtrees (
    tenant_id  text NOT NULL,
    level      smallint NOT NULL CHECK (level > 0 AND level % 8 = 0),
    node_index bigint NOT NULL CHECK (node_index >= 0),
    hash       bytea NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (tenant_id, level, node_index)
);

-- The partition count of the audit topic when its trees were begun: a tenant's leaf order is its partition's, and
-- another count would move tenants between partitions (docs/integrity.md "Leaf order").
CREATE TABLE integrity_topics (
    topic      text PRIMARY KEY,
    partitions integer NOT NULL CHECK (partitions > 0),
    created_at timestamptz NOT NULL DEFAULT now()
);
