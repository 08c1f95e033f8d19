"""Runs docs/integrity.md's Python reference (integrity.py, in the folder given) over an export, the checkpoints,
the window proof and the keys given as JSON on stdin, and prints its findings, for the offline verification test
to compare with the TypeScript verifier's."""
import json, sys

sys.path.insert(0, sys.argv[1])
import integrity  # noqa: E402

given = json.load(sys.stdin)
print(json.dumps(integrity.check_trail(given["keys"], given["checkpoints"], given["proofs"], given["rows"],
                                       complete=given["complete"], truncated=given["truncated"])))
