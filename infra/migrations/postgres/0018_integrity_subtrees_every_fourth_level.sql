-- Subtrees of every fourth level are stored, not only every eighth (docs/integrity.md "The tree store"): a proof of
-- a tree of 10 million leaves then reads about 110 stored hashes rather than about 940. The hashes of levels 4,
-- 12, 20, ... of the trees appended before are made here from the band below them (the leaves for level 4, the
-- stored level 8 for level 12, and so on), pairing complete siblings with RFC 9162's node hash, SHA-256(0x01 ||
-- left || right): only complete subtrees are stored, so a pair with one child is left out as the notary leaves it
-- out. They are made first, reading only; the table is locked for its new constraint and rows at the end.
CREATE TEMP TABLE subtree_work (
    tenant_id  text NOT NULL,
    level      smallint NOT NULL,
    node_index bigint NOT NULL,
    hash       bytea NOT NULL
) ON COMMIT DROP;
CREATE TEMP TABLE subtree_made (LIKE subtree_work) ON COMMIT DROP;

DO $$
DECLARE
    base integer;
    step integer;
BEGIN
    -- A tree has at most 2^63 leaves: its levels are below 64.
    FOR base IN 0..56 BY 8 LOOP
        TRUNCATE subtree_work;
        IF base = 0 THEN
            INSERT INTO subtree_work
            SELECT tenant_id, 1, leaf_index / 2, sha256('\x01'::bytea || string_agg(leaf_hash, ''::bytea ORDER BY leaf_index))
            FROM integrity_leaves GROUP BY tenant_id, leaf_index / 2 HAVING count(*) = 2;
        ELSE
            INSERT INTO subtree_work
            SELECT tenant_id, base + 1, node_index / 2, sha256('\x01'::bytea || string_agg(hash, ''::bytea ORDER BY node_index))
            FROM integrity_subtrees WHERE level = base GROUP BY tenant_id, node_index / 2 HAVING count(*) = 2;
        END IF;
        EXIT WHEN NOT FOUND;
        FOR step IN 2..4 LOOP
            INSERT INTO subtree_work
            SELECT tenant_id, base + step, node_index / 2, sha256('\x01'::bytea || string_agg(hash, ''::bytea ORDER BY node_index))
            FROM subtree_work WHERE level = base + step - 1 GROUP BY tenant_id, node_index / 2 HAVING count(*) = 2;
        END LOOP;
        INSERT INTO subtree_made SELECT * FROM subtree_work WHERE level = base + 4;
    END LOOP;
END $$;

ALTER TABLE integrity_subtrees DROP CONSTRAINT integrity_subtrees_level_check;
ALTER TABLE integrity_subtrees ADD CONSTRAINT integrity_subtrees_level_check CHECK (level > 0 AND level % 4 = 0);
INSERT INTO integrity_subtrees (tenant_id, level, node_index, hash)
SELECT tenant_id, level, node_index, hash FROM subtree_made
ON CONFLICT DO NOTHING;
