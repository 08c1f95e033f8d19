"""The export benchmark's Parquet baseline: ClickHouse writing the file itself.

ClickHouse 18.16 has no Parquet output. chdb (the current ClickHouse engine, in-process) reads the rows from the
18.16 server's HTTP interface in RowBinary through the url() table function, in the order the server sorted them,
and writes them as Parquet with the exporter's schema: SNAPPY pages, row groups of 10,000 rows, `timestamp` as
DateTime64(3, 'UTC') (INT64, TIMESTAMP(MILLIS, UTC)), the flags as Bool, every other column a string.

Usage: chdb-parquet.py SOURCE_URL OUT_PATH. Prints one JSON line: seconds, CPU seconds of this process and its
peak RSS.
"""

import json
import resource
import sys
import time

import chdb

STRUCTURE = (
    "event_id String, ts Int64, tenant_id String, action String, user_id String, user_role String, "
    "resource_type String, resource_id String, fields_accessed String, phi_involved UInt8, source_ip String, "
    "user_agent String, justification String, success UInt8, details String, patient_id String, "
    "purpose_of_use String, recipient String, disclosure UInt8, accounting_exclusion String"
)


def quoted(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def main():
    source, out = sys.argv[1], sys.argv[2]
    started = time.monotonic()
    # One GET, read once, however long the sort takes before its first byte: 18.16 answers a HEAD request by
    # running the whole query, and knows no ranges, so no probe, no parallel reads and no retries (each of those
    # made the server sort the window again).
    chdb.query(
        f"""INSERT INTO FUNCTION file({quoted(out)}, 'Parquet')
        SELECT event_id, fromUnixTimestamp64Milli(ts, 'UTC') AS timestamp, tenant_id, action, user_id, user_role,
          resource_type, resource_id, fields_accessed, CAST(phi_involved AS Bool) AS phi_involved, source_ip,
          user_agent, justification, CAST(success AS Bool) AS success, details, patient_id, purpose_of_use,
          recipient, CAST(disclosure AS Bool) AS disclosure, accounting_exclusion
        FROM url({quoted(source)}, 'RowBinary', {quoted(STRUCTURE)})
        SETTINGS output_format_parquet_compression_method = 'snappy',
          output_format_parquet_row_group_size = 10000, engine_file_truncate_on_insert = 1,
          http_make_head_request = 0, max_download_threads = 1, http_max_tries = 1,
          http_receive_timeout = 3600"""
    )
    seconds = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "seconds": seconds,
                "cpu_seconds": usage.ru_utime + usage.ru_stime,
                "max_rss_bytes": usage.ru_maxrss * 1024,
            }
        )
    )


main()
