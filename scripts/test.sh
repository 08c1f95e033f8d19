#!/usr/bin/env bash
# `npm test`: the whole suite on a fresh clone. Installs what is missing, starts the components (the local stack, or
# containers where it cannot run: scripts/components.sh), then static checks, unit tests, and integration and
# end-to-end tests against the real Kafka, ClickHouse, Postgres and S3Proxy.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-node.sh
bash scripts/ensure-deps.sh
source scripts/components.sh
components="$(components_mode)"
if [ "${AUDIT_EXTERNAL_STACK:-false}" = true ]; then
  echo "components: from the environment (AUDIT_EXTERNAL_STACK=true)"
elif [ "$components" = local ]; then
  echo "components: the local stack (infra/local/stack.sh)"
  bash infra/local/stack.sh up
  eval "$(bash infra/local/stack.sh env)"
else
  echo "components: containers (testcontainers; images ${KAFKA_IMAGE:-upstream}, ${CLICKHOUSE_IMAGE:-upstream}, ${POSTGRES_IMAGE:-upstream})"
  trap stop_component_containers EXIT
  remove_test_leftovers
  start_component_containers
fi
# The verifier tests run python3: the machine's, else in a container (scripts/python-venv.sh).
source scripts/python-venv.sh
ensure_python3
# The tiers below that are scripts of their own take the components from here.
export AUDIT_EXTERNAL_STACK=true
results=.data/test-results
rm -rf "$results" && mkdir -p "$results"
started=$SECONDS
echo "== typecheck"; npx tsc -p tsconfig.json --noEmit
echo "== lint"; npx eslint . && npx prettier --check . >/dev/null
echo "typecheck and lint: $((SECONDS - started)) s"
failed_runs=0
timings=()
# tier NAME COMMAND...: runs one tier, its output also kept in a log, counts it as failed if it exits non-zero (and
# names it with its log in failed-tiers.tsv, for the summary), and keeps how long it took.
tier() {
  local name="$1" started=$SECONDS status=0 log
  shift
  log="$results/tier-$((${#timings[@]} + 1)).log"
  echo "== $name"
  { "$@" 2>&1 | tee "$log"; } || status=$?
  if [ "$status" -ne 0 ]; then
    failed_runs=$((failed_runs + 1))
    printf '%s\t%s\t%s\n' "$name" "$status" "$log" >>"$results/failed-tiers.tsv"
  fi
  timings+=("$(printf '%5d s  %s' $((SECONDS - started)) "$name")")
}
tier "unit" npx vitest run --project unit --reporter=default --reporter=json --outputFile.json="$results/unit.json"
tier "integration and end-to-end" npx vitest run --project int --reporter=default --reporter=json \
  --outputFile.json="$results/int.json"
tier "the ClickHouse SQL on a current engine (chdb)" bash scripts/test-current-clickhouse.sh --reporter=default \
  --reporter=json --outputFile.json="$results/current-clickhouse.json"
tier "the OpenAPI document against third-party API tools" bash scripts/test-api-tools.sh
# Where the local stack runs (our machines), the images are built here and the containers are tested too; on the
# containers path the suite above already ran on them.
if [ "$components" = local ]; then
  tier "containers: images built here, docker-compose.yml under Podman, end-to-end on containers" \
    bash scripts/test-containers.sh "$results"
fi
echo "== time per tier"
printf '%s\n' "${timings[@]}"
npx tsx scripts/test-summary.ts "$results/failed-tiers.tsv" "$results"/*.json
[ "$failed_runs" -eq 0 ]
