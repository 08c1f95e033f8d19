"""Runs docs/integrity.md's Python reference (integrity.py, in the folder given) over the cases on stdin and
prints what it answers, for test/int/integrity-reference.int.test.ts to compare with the TypeScript."""
import json, sys

sys.path.insert(0, sys.argv[1])
import integrity  # noqa: E402


def row_leaf(row):
    """An export row's leaf hash in hex, or None for a row that is no event."""
    try:
        return integrity.leaf_hash(integrity.encode_leaf(integrity.event_of_row(row))).hex()
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


cases = json.load(sys.stdin)
unhex = bytes.fromhex
leaf_hashes = [integrity.leaf_hash(integrity.encode_leaf(e)).hex() for e in cases["events"]]
hashes = [unhex(h) for h in leaf_hashes]
print(json.dumps({
    "leafHashes": leaf_hashes,
    "roots": [integrity.root_of(hashes[:n]).hex() for n in range(len(hashes) + 1)],
    "inclusion": [
        integrity.verify_inclusion(unhex(c["leaf"]), c["index"], c["size"], [unhex(p) for p in c["proof"]],
                                   unhex(c["root"]))
        for c in cases["inclusion"]
    ],
    "consistency": [
        integrity.verify_consistency(c["first"], c["second"], [unhex(p) for p in c["proof"]],
                                     unhex(c["firstRoot"]), unhex(c["secondRoot"]))
        for c in cases["consistency"]
    ],
    "checkpoints": [
        (lambda r: None if r is None else [r[0], r[1], r[2].hex(), r[3]])(
            integrity.verify_checkpoint(c["note"], c["keys"]))
        for c in cases["checkpoints"]
    ],
    "formats": [integrity.verify_checkpoint(c["note"], c["keys"]) for c in cases["formats"]],
    "rows": [row_leaf(row) for row in cases.get("rows", [])],
}))
