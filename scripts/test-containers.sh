#!/usr/bin/env bash
# The containers tier of `npm test` on machines that build their own images (docs/testing.md "Containers"): every
# image built here without a registry (infra/containers/build-images.sh), the compose files' tests under Podman
# (docker-compose.yml's smoke test, docker-compose.cluster.yml's crashes), then the end-to-end tests of each path
# only this tier takes and the API tools again, with Kafka, ClickHouse, Postgres and S3Proxy in containers of
# those images, started by testcontainers, and without Go and Python on the PATH.
# Usage: test-containers.sh [RESULTS_DIR] (vitest JSON reports go there).
set -euo pipefail
cd "$(dirname "$0")/.."
results="${1:-.data/test-results}"
mkdir -p "$results"
source scripts/ensure-node.sh
# npm test runs this tier beside the tiers on the local stack: its services take ports of another range, and its API
# tools run works in folders of its own.
export AUDIT_TEST_PORT_BASE=25100 API_TOOLS_NAME=api-tools-containers
reporters=(--reporter=default --reporter=json)
started=$SECONDS
bash infra/containers/build-images.sh
# The images' gigabytes written out before any database runs here: the kernel flushing them meanwhile held a
# Postgres container's commit for over two seconds once (the gateway then answers 503, as it must).
sync
echo "containers: images built or reused in $((SECONDS - started)) s"
# Assigned first, each alone: `eval "$(…)"` would go on without the variables when the script fails.
engine="$(bash infra/containers/podman.sh socket)"
eval "$engine"
images="$(bash infra/containers/build-images.sh env)"
eval "$images"
export DOCKER_HOST KAFKA_IMAGE CLICKHOUSE_IMAGE POSTGRES_IMAGE S3PROXY_IMAGE AUDIT_IMAGE PYTHON_IMAGE
# No registry to pull testcontainers' reaper image from: scripts/test-components.ts removes its containers itself.
export TESTCONTAINERS_RYUK_DISABLED=true
source scripts/components.sh
remove_test_leftovers
failed=0

# path_without PATTERN...: a PATH with every command of this one but those whose names match a PATTERN, as links
# in a folder of its own.
path_without() {
  local dir=$PWD/.data/containers-path folders folder command pattern
  rm -rf "$dir" && mkdir -p "$dir"
  IFS=: read -ra folders <<<"$PATH"
  for folder in "${folders[@]}"; do
    for command in "$folder"/*; do
      [ -e "$command" ] && [ ! -e "$dir/${command##*/}" ] || continue
      for pattern in "$@"; do
        # shellcheck disable=SC2254 # the patterns are meant as patterns
        case "${command##*/}" in $pattern) continue 2 ;; esac
      done
      ln -s "$command" "$dir/${command##*/}"
    done
  done
  echo "$dir"
}

started=$SECONDS
npx vitest run --project containers "${reporters[@]}" --outputFile.json="$results/containers.json" || failed=1
echo "containers: the compose files' tests in $((SECONDS - started)) s"

started=$SECONDS
trap stop_component_containers EXIT
start_component_containers
echo "containers: components ready in $((SECONDS - started)) s"
# As on a contributor's laptop with only Node and Docker: no python3 and no go on the PATH, so that the suite takes
# Go from the module proxy and runs Python in a container (docs/testing.md "Tools").
PATH="$(path_without 'python*' 'pip*' go gofmt)"
source scripts/python-venv.sh
ensure_python3
# Each path that differs on containers, once (the rest of the suite runs the same code on the same engines in the
# integration tier): every component as a container (an ingest, projection and list), a component's container
# stopped and started (outage), S3Proxy's container and pyarrow in a Python container (export jobs), a delivery
# (the dispatcher), Go from the module proxy and Python in a container (the verifiers, the metrics linter). The
# heaviest files make a fifth of their data here (docs/testing.md "Volume").
AUDIT_TEST_VOLUME=${AUDIT_TEST_VOLUME:-reduced} npx vitest run --project int "${reporters[@]}" \
  --outputFile.json="$results/containers-e2e.json" \
  test/e2e/gateway-list.e2e.test.ts \
  test/e2e/outage.e2e.test.ts \
  test/e2e/export-jobs.e2e.test.ts \
  test/e2e/webhook-delivery.e2e.test.ts \
  test/e2e/webhook-verifiers.e2e.test.ts \
  test/e2e/integrity-offline.e2e.test.ts \
  test/e2e/metrics.e2e.test.ts || failed=1
echo "containers: the end-to-end tests of the containers' paths in $((SECONDS - started)) s"
started=$SECONDS
bash scripts/test-api-tools.sh || failed=1
echo "containers: the API tools with Python in a container in $((SECONDS - started)) s"
stop_component_containers
exit "$failed"
