#!/usr/bin/env bash
# `npm test`: the whole suite on a fresh clone. Installs what is missing, starts the local components,
# then static checks, unit tests, and integration/end-to-end tests against the real Kafka, ClickHouse and Postgres.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prepare.sh
results=.data/test-results
rm -rf "$results" && mkdir -p "$results"
echo "== typecheck"; npx tsc -p tsconfig.json --noEmit
echo "== lint"; npx eslint . && npx prettier --check . >/dev/null
failed_runs=0
echo "== unit"
npx vitest run --project unit --reporter=default --reporter=json --outputFile.json="$results/unit.json" ||
  failed_runs=$((failed_runs + 1))
echo "== integration and end-to-end"
npx vitest run --project int --reporter=default --reporter=json --outputFile.json="$results/int.json" ||
  failed_runs=$((failed_runs + 1))
echo "== the ClickHouse SQL on a current engine (chdb)"
bash scripts/test-current-clickhouse.sh --reporter=default --reporter=json \
  --outputFile.json="$results/current-clickhouse.json" || failed_runs=$((failed_runs + 1))
echo "== the OpenAPI document against third-party API tools"
bash scripts/test-api-tools.sh || failed_runs=$((failed_runs + 1))
npx tsx scripts/test-summary.ts "$failed_runs" "$results"/*.json
[ "$failed_runs" -eq 0 ]
