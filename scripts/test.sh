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
# containers path the tiers below already run on them. The containers tier has components of its own, so it runs
# beside the tiers on the local stack (docs/testing.md "Containers"): the whole run then takes about as long as the
# longer of the two rather than their sum. Its output goes to its log alone, printed when it has ended, so that the
# two do not interleave. It runs in a process group of its own, which a run that ends first (interrupted, or
# failed before it) stops: it would otherwise go on, unwatched, into the next run.
containers=
if [ "$components" = local ]; then
  containers_name="containers: images built here, docker-compose.yml under Podman, end-to-end on containers"
  containers_started=$SECONDS
  echo "== $containers_name: beside the tiers below, its output after theirs"
  group=()
  if command -v setsid >/dev/null; then group=(setsid); fi
  # It notes how long it took itself: the run waits for it only once the others have ended.
  ${group[@]+"${group[@]}"} bash -c 'bash scripts/test-containers.sh "$1"; status=$?
    echo "$SECONDS" >"$1/containers.seconds"; echo "$status" >"$1/containers.status"; exit "$status"' _ "$results" \
    >"$results/containers.log" 2>&1 </dev/null &
  containers=$!
  trap '[ -z "$containers" ] || kill -TERM -- "-$containers" 2>/dev/null || kill -TERM "$containers" 2>/dev/null || true' EXIT
fi
tier "unit" unit.log npx vitest run --project unit --reporter=default --reporter=json \
  --outputFile.json="$results/unit.json"
tier "integration and end-to-end" int.log npx vitest run --project int --reporter=default --reporter=json \
  --outputFile.json="$results/int.json"
tier "the ClickHouse SQL on a current engine (chdb)" current-clickhouse.log bash scripts/test-current-clickhouse.sh \
  --reporter=default --reporter=json --outputFile.json="$results/current-clickhouse.json"
tier "the OpenAPI document against third-party API tools" api-tools.log bash scripts/test-api-tools.sh
tier "the cluster: Kafka, ClickHouse and Postgres replicated, ClickHouse sharded" cluster.log \
  bash scripts/test-cluster.sh "$results"
if [ -n "$containers" ]; then
  status=0
  wait "$containers" || status=$?
  # The tier's own word where it gave one: bash's wait answered 127 once for a tier that had ended long before.
  if [ -s "$results/containers.status" ]; then status=$(cat "$results/containers.status"); fi
  containers=
  ended "$containers_name" "$results/containers.log" "$status" \
    "$(cat "$results/containers.seconds" 2>/dev/null || echo $((SECONDS - containers_started)))"
  echo "== $containers_name"
  cat "$results/containers.log"
fi
echo "== time per tier"
cat "$results/timings.txt"
npx tsx scripts/test-summary.ts "$results/failed-tiers.tsv" "$results"/*.json
[ ! -s "$results/failed-tiers.tsv" ]
