-- Each tree gets a number, and its leaves and stored subtrees are keyed by that number rather than by the
-- tenant's id (docs/integrity.md "The tree store"): every leaf has three index entries, and a text key compared by
-- the database's collation in each of them cost the notary's Postgres about a third of its work per leaf. A
-- bigint is as wide as the alignment makes an int there, and can never run out.
ALTER TABLE integrity_trees ADD COLUMN tree_id bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE integrity_trees ADD CONSTRAINT integrity_trees_tree_id_key UNIQUE (tree_id);

-- Every leaf and subtree belongs to a tree row (the notary writes them in one transaction). One that does not (a
-- bench or a hand-made store interrupted) stops the migration, named, rather than being left behind.
DO $$
DECLARE
    orphans text;
BEGIN
    SELECT string_agg(DISTINCT x.tenant_id, ', ') INTO orphans
    FROM (SELECT tenant_id FROM integrity_leaves UNION ALL SELECT tenant_id FROM integrity_subtrees) x
    WHERE NOT EXISTS (SELECT 1 FROM integrity_trees t WHERE t.tenant_id = x.tenant_id);
    IF orphans IS NOT NULL THEN
        RAISE EXCEPTION 'leaves or subtrees without a tree row, of tenants: %', orphans
            USING HINT = 'Add their integrity_trees rows or delete them, then migrate again.';
    END IF;
END $$;

-- The old tables are renamed and their indexes dropped (the copy reads them whole), the new ones filled in key
-- order and indexed after. Their checks keep the names migration 0015 gave them: a name left to Postgres would
-- get a suffix, the renamed tables holding the plain one until they are dropped.
ALTER TABLE integrity_leaves RENAME TO integrity_leaves_by_tenant;
ALTER TABLE integrity_leaves_by_tenant
    DROP CONSTRAINT integrity_leaves_pkey,
    DROP CONSTRAINT integrity_leaves_tenant_id_event_id_key;
DROP INDEX integrity_leaves_by_time;
ALTER TABLE integrity_subtrees RENAME TO integrity_subtrees_by_tenant;
ALTER TABLE integrity_subtrees_by_tenant DROP CONSTRAINT integrity_subtrees_pkey;

CREATE TABLE integrity_leaves (
    tree_id    bigint NOT NULL,
    leaf_index bigint NOT NULL CONSTRAINT integrity_leaves_leaf_index_check CHECK (leaf_index >= 0),
    event_id   uuid NOT NULL,
    leaf_hash  bytea NOT NULL CONSTRAINT integrity_leaves_leaf_hash_check CHECK (length(leaf_hash) = 32),
    ts         bigint
);
INSERT INTO integrity_leaves (tree_id, leaf_index, event_id, leaf_hash, ts)
SELECT t.tree_id, l.leaf_index, l.event_id, l.leaf_hash, l.ts
FROM integrity_leaves_by_tenant l JOIN integrity_trees t USING (tenant_id)
ORDER BY 1, 2;
ALTER TABLE integrity_leaves
    ADD PRIMARY KEY (tree_id, leaf_index),
    ADD CONSTRAINT integrity_leaves_tree_id_event_id_key UNIQUE (tree_id, event_id);
CREATE INDEX integrity_leaves_by_time ON integrity_leaves (tree_id, ts, leaf_index) WHERE ts IS NOT NULL;

CREATE TABLE integrity_subtrees (
    tree_id    bigint NOT NULL,
    level      smallint NOT NULL CONSTRAINT integrity_subtrees_level_check CHECK (level > 0 AND level % 4 = 0),
    node_index bigint NOT NULL CONSTRAINT integrity_subtrees_node_index_check CHECK (node_index >= 0),
    hash       bytea NOT NULL CONSTRAINT integrity_subtrees_hash_check CHECK (length(hash) = 32)
);
INSERT INTO integrity_subtrees (tree_id, level, node_index, hash)
SELECT t.tree_id, s.level, s.node_index, s.hash
FROM integrity_subtrees_by_tenant s JOIN integrity_trees t USING (tenant_id)
ORDER BY 1, 2, 3;
ALTER TABLE integrity_subtrees ADD PRIMARY KEY (tree_id, level, node_index);

DROP TABLE integrity_leaves_by_tenant, integrity_subtrees_by_tenant;
