#!/usr/bin/env bash
# The containers tier of `npm test` (docs/testing.md "Containers"): every image built here without a registry
# (infra/containers/build-images.sh), then docker-compose.yml's smoke test under Podman. Extra arguments go to
# vitest (the JSON reporter of scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
bash infra/containers/build-images.sh
echo "containers: images built or reused in $((SECONDS - started)) s"
eval "$(bash infra/containers/podman.sh socket)"
eval "$(bash infra/containers/build-images.sh env)"
export DOCKER_HOST KAFKA_IMAGE CLICKHOUSE_IMAGE POSTGRES_IMAGE AUDIT_IMAGE
npx vitest run --project containers "$@"
