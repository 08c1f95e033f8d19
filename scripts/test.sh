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
# The viewer's tests drive Chromium (scripts/ensure-chromium.sh).
source scripts/ensure-chromium.sh
ensure_chromium
# The integration tests validate FHIR resources with HAPI FHIR (scripts/ensure-fhir-validator.sh).
source scripts/ensure-fhir-validator.sh
ensure_fhir_validator
# The patient access report's PDF is read back with poppler's pdftotext (scripts/ensure-poppler.sh).
source scripts/ensure-poppler.sh
ensure_poppler
# The tiers below that are scripts of their own take the components from here.
export AUDIT_EXTERNAL_STACK=true
results=.data/test-results
rm -rf "$results" && mkdir -p "$results"
# What a run's length depends on, printed first and again before the summary (a CI log is often cut to its end).
machine="$(bash scripts/machine-facts.sh .data)"
echo "$machine"
# The whole run stops its tiers beside the others after this many minutes, so that a run that would outlast a CI's
# limit still ends with their logs and the summary rather than being cut off without them.
budget_minutes=${AUDIT_TEST_BUDGET_MINUTES:-80}
started=$SECONDS
echo "== typecheck"; npx tsc -p tsconfig.json --noEmit && npx tsc -p services/gateway/viewer/tsconfig.json
echo "== lint"; npx eslint . && npx prettier --check . >/dev/null
echo "typecheck and lint: $((SECONDS - started)) s"
# ended NAME LOG STATUS SECONDS: a tier has ended after SECONDS; one that exited non-zero is named with its log in
# failed-tiers.tsv (for the summary), and its time is kept in timings.txt.
ended() {
  [ "$3" -eq 0 ] || printf '%s\t%s\t%s\n' "$1" "$3" "$2" >>"$results/failed-tiers.tsv"
  printf '%5d s  %s\n' "$4" "$1" >>"$results/timings.txt"
}
# tier NAME LOG COMMAND...: runs one tier, its output also kept in LOG.
tier() {
  local name="$1" log="$results/$2" started=$SECONDS status=0
  shift 2
  echo "== $name"
  { "$@" 2>&1 | tee "$log"; } || status=$?
  ended "$name" "$log" "$status" $((SECONDS - started))
}
# Where the local stack runs (our machines), the images are built here and the containers are tested too; on the
# containers path the tiers below already run on them. The containers tier has components of its own, and the
# cluster tier after it a cluster of its own (only S3Proxy is the local stack's, where each test has its own
# bucket), so the two run one after the other beside the tiers on the local stack (docs/testing.md), and the API
# tools after them, on the local stack (the sequence in front was the longer): the whole run then takes about as
# long as the longer of the two sequences rather than their sum. Their services take ports of their own range, and
# their output goes to their logs alone, printed once the tiers in front have ended, so that nothing interleaves.
# They run in a process group of their own, which a run that ends first (interrupted, or failed before it) stops:
# it would otherwise go on, unwatched, into the next run.
containers_name="containers: images built here, docker-compose.yml under Podman, end-to-end on containers"
cluster_name="the cluster: Kafka, ClickHouse and Postgres replicated, ClickHouse sharded"
api_tools_name="the OpenAPI document against third-party API tools"
behind=
if [ "$components" = local ]; then
  echo "== $containers_name, then $cluster_name, then $api_tools_name: beside the tiers below," \
    "their output after theirs"
  group=()
  if command -v setsid >/dev/null; then group=(setsid); fi
  # Each notes how long it took itself and how it ended (the run reads them once the others have ended), and when it
  # began and ended in beside.txt. `timeout` stops the whole group (every process of them) at the run's budget.
  ${group[@]+"${group[@]}"} timeout -k 60 $((budget_minutes * 60 - SECONDS)) bash -c 'timed() {
      local name=$1 started=$SECONDS status=0; shift
      echo "$(date -u +%T) $name began" >>"$results/beside.txt"
      "$@" >"$results/$name.log" 2>&1 </dev/null || status=$?
      echo $((SECONDS - started)) >"$results/$name.seconds"; echo "$status" >"$results/$name.status"
      echo "$(date -u +%T) $name ended, exit $status" >>"$results/beside.txt"; }
    results=$1
    timed containers bash scripts/test-containers.sh "$results"
    timed cluster env AUDIT_TEST_PORT_BASE=25100 bash scripts/test-cluster.sh "$results"
    timed api-tools env AUDIT_TEST_PORT_BASE=25100 bash scripts/test-api-tools.sh' _ "$results" \
    >/dev/null 2>&1 </dev/null &
  behind=$!
  trap '[ -z "$behind" ] || kill -TERM -- "-$behind" 2>/dev/null || kill -TERM "$behind" 2>/dev/null || true' EXIT
fi
tier "unit" unit.log npx vitest run --project unit --reporter=default --reporter=json \
  --outputFile.json="$results/unit.json"
tier "integration and end-to-end" int.log npx vitest run --project int --reporter=default --reporter=json \
  --outputFile.json="$results/int.json"
tier "the ClickHouse SQL on a current engine (chdb)" current-clickhouse.log bash scripts/test-current-clickhouse.sh \
  --reporter=default --reporter=json --outputFile.json="$results/current-clickhouse.json"
if [ -z "$behind" ]; then
  tier "$api_tools_name" api-tools.log bash scripts/test-api-tools.sh
  tier "$cluster_name" cluster.log bash scripts/test-cluster.sh "$results"
else
  # Their logs from the start, then as they are written until all have ended: a run cut short still shows where
  # they were.
  echo "== $containers_name, then $cluster_name, then $api_tools_name: their logs"
  tail -n +1 -F --pid="$behind" "$results/containers.log" "$results/cluster.log" "$results/api-tools.log" \
    2>/dev/null || true
  beside_status=0
  wait "$behind" || beside_status=$?
  behind=
  # timeout's own statuses: the budget ran out (124), or the group outlasted its TERM by a minute (137).
  if [ "$beside_status" -eq 124 ] || [ "$beside_status" -eq 137 ]; then
    echo "$(date -u +%T) stopped: the run's budget of $budget_minutes min ran out" >>"$results/beside.txt"
  fi
  # behind_ended NAME FILE: a tier that ran behind, by the status and seconds it noted (a tier it never reached or
  # did not finish, after an interruption or at the budget, counts as failed).
  behind_ended() {
    local status=1
    if [ -s "$results/$2.status" ]; then status=$(cat "$results/$2.status"); fi
    ended "$1" "$results/$2.log" "$status" "$(cat "$results/$2.seconds" 2>/dev/null || echo 0)"
  }
  behind_ended "$containers_name" containers
  behind_ended "$cluster_name" cluster
  behind_ended "$api_tools_name" api-tools
  echo "== beside the others (the budget: $budget_minutes min)"
  cat "$results/beside.txt" 2>/dev/null || true
fi
echo "== time per tier"
cat "$results/timings.txt"
echo "$machine"
npx tsx scripts/test-summary.ts "$results/failed-tiers.tsv" "$results"/*.json
[ ! -s "$results/failed-tiers.tsv" ]
