#!/usr/bin/env bash
# The containers tier of `npm test` on machines that build their own images (docs/testing.md "Containers"): every
# image built here without a registry (infra/containers/build-images.sh), docker-compose.yml's smoke test under
# Podman, then the end-to-end suite again with Kafka, ClickHouse and Postgres in containers of those images,
# started by testcontainers. Usage: test-containers.sh [RESULTS_DIR] (vitest JSON reports go there).
set -euo pipefail
cd "$(dirname "$0")/.."
results="${1:-.data/test-results}"
mkdir -p "$results"
reporters=(--reporter=default --reporter=json)
started=$SECONDS
bash infra/containers/build-images.sh
echo "containers: images built or reused in $((SECONDS - started)) s"
eval "$(bash infra/containers/podman.sh socket)"
eval "$(bash infra/containers/build-images.sh env)"
export DOCKER_HOST KAFKA_IMAGE CLICKHOUSE_IMAGE POSTGRES_IMAGE AUDIT_IMAGE
# No registry to pull testcontainers' reaper image from: scripts/test-components.ts removes its containers itself.
export TESTCONTAINERS_RYUK_DISABLED=true
failed=0

started=$SECONDS
npx vitest run --project containers "${reporters[@]}" --outputFile.json="$results/containers.json" || failed=1
echo "containers: docker-compose.yml smoke test in $((SECONDS - started)) s"

started=$SECONDS
source scripts/components.sh
trap stop_component_containers EXIT
start_component_containers
echo "containers: components ready in $((SECONDS - started)) s"
npx vitest run --project int test/e2e "${reporters[@]}" --outputFile.json="$results/containers-e2e.json" || failed=1
stop_component_containers
echo "containers: the end-to-end suite on containers in $((SECONDS - started)) s"
exit "$failed"
