"""Reads an export job's file with third-party readers, as a data team would: Parquet with pyarrow, CSV with
Python's csv module (RFC 4180), NDJSON with the json module. Prints the file's columns and their types as the
first line, then each row as a JSON object with the list's field values, one per line.

Usage: read_export.py ndjson|csv|parquet FILE
"""

import csv
import datetime
import gzip
import io
import json
import sys


def parquet_rows(path):
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    yield {"columns": [[f.name, str(f.type), f.nullable] for f in table.schema]}
    for row in table.to_pylist():
        ts = row["timestamp"]
        assert ts.tzinfo is not None, "timestamp without a time zone"
        row["timestamp"] = ts.astimezone(datetime.timezone.utc).isoformat(timespec="milliseconds")
        yield row


def csv_rows(path):
    with gzip.open(path, "rt", encoding="utf-8", newline="") as text:
        reader = csv.reader(text, strict=True)
        header = next(reader)
        yield {"columns": [[name, "string", False] for name in header]}
        for values in reader:
            row = dict(zip(header, values, strict=True))
            for flag in ("phi_involved", "success", "disclosure"):
                assert row[flag] in ("true", "false"), row[flag]
                row[flag] = row[flag] == "true"
            yield row


def ndjson_rows(path):
    with gzip.open(path, "rt", encoding="utf-8") as text:
        yield {"columns": None}
        for line in text:
            yield json.loads(line)


READERS = {"parquet": parquet_rows, "csv": csv_rows, "ndjson": ndjson_rows}

if __name__ == "__main__":
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
    for item in READERS[sys.argv[1]](sys.argv[2]):
        out.write(json.dumps(item, ensure_ascii=False) + "\n")
    out.flush()
