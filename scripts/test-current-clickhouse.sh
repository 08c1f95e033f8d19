#!/usr/bin/env bash
# `npm run test:current-clickhouse`: the tests of the ClickHouse SQL (schema, views, projector inserts, list, lookup,
# export, filters, backfill, replay, retention purge) against a current ClickHouse engine, chdb from PyPI, served over ClickHouse's
# HTTP interface by infra/current-clickhouse/chdb-http.py. Kafka and Postgres are the local stack's.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prepare.sh
venv=$PWD/.data/chdb-venv
port=${CHDB_HTTP_PORT:-15124}
source scripts/python-venv.sh
ensure_venv "$venv" infra/current-clickhouse/requirements.txt
rm -rf .data/chdb && mkdir -p .data/chdb .data/test-logs
"$VENV_BIN/python" infra/current-clickhouse/chdb-http.py "$port" .data/chdb >.data/test-logs/chdb-http.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
# Ready once it has bound its port and named its engine (if a server left by an earlier run holds the port, ours
# exits instead).
log=.data/test-logs/chdb-http.log
for _ in $(seq 120); do
  kill -0 "$server" 2>/dev/null || { cat "$log"; exit 1; }
  grep -q '^chdb-http: ClickHouse' "$log" && break
  sleep 1
done
grep -q '^chdb-http: ClickHouse' "$log" || { echo "chdb-http did not start on :$port" >&2; exit 1; }
head -1 "$log"
# Arguments that start with a dash go to vitest (with their values after `=`); others name test files to run
# instead of the whole list.
options=() files=()
for arg in "$@"; do
  case "$arg" in
    -*) options+=("$arg") ;;
    *) files+=("$arg") ;;
  esac
done
[ ${#files[@]} -gt 0 ] || files=(
  services/projector/src/adapters/clickhouse.sink.int.test.ts
  test/int/projection-tables-admin.int.test.ts
  test/int/indexed-page.int.test.ts
  test/int/migrations.int.test.ts
  test/int/backfill.int.test.ts
  services/shared/src/retention/purge.clickhouse.int.test.ts
  test/e2e/gateway-list.e2e.test.ts
  test/e2e/gateway-lookup.e2e.test.ts
  test/e2e/gateway-export.e2e.test.ts
  test/e2e/pagination.e2e.test.ts
  test/e2e/tenant-isolation.e2e.test.ts
  test/e2e/replay-projection.e2e.test.ts
)
# The engine's semantics, not its load: the heaviest files make a fifth of their data (docs/testing.md "Volume").
AUDIT_TEST_VOLUME=${AUDIT_TEST_VOLUME:-reduced} CLICKHOUSE_URL="http://127.0.0.1:$port" \
  npx vitest run --project int "${options[@]}" "${files[@]}"
