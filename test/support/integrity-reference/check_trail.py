"""Runs docs/integrity.md's Python reference (integrity.py, in the folder given) over exports (rows, or a CSV
file's text), checkpoints, window proofs and keys given as JSON on stdin (one check, or a list of them), and
prints its findings, for the tests to compare with the TypeScript verifier's."""
import io, json, sys

sys.path.insert(0, sys.argv[1])
import integrity  # noqa: E402


def check(given):
    # The rows as the API gives them, or an export job's CSV file as text.
    rows = given["rows"] if "rows" in given else integrity.rows_of_csv(io.StringIO(given["csv"], newline=""))
    return integrity.check_trail(given["keys"], given["checkpoints"], given["proofs"], rows,
                                 complete=given["complete"], truncated=given["truncated"])


given = json.load(sys.stdin)
print(json.dumps([check(g) for g in given] if isinstance(given, list) else check(given)))
