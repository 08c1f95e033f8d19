"""Runs docs/integrity.md's Python reference (integrity.py, in the folder given) over exports, checkpoints, window
proofs and keys given as JSON on stdin (one check, or a list of them), and prints its findings, for the tests to
compare with the TypeScript verifier's."""
import json, sys

sys.path.insert(0, sys.argv[1])
import integrity  # noqa: E402


def check(given):
    return integrity.check_trail(given["keys"], given["checkpoints"], given["proofs"], given["rows"],
                                 complete=given["complete"], truncated=given["truncated"])


given = json.load(sys.stdin)
print(json.dumps([check(g) for g in given] if isinstance(given, list) else check(given)))
