#!/usr/bin/env bash
# `npm run compose -- [--cluster] COMMAND`: docker-compose.yml, or with --cluster docker-compose.cluster.yml, on a
# machine without Docker (docs/operations.md "Deployment"): Podman's Docker-compatible socket, the images built here
# (build-images.sh), and the checkout's development secrets (.data/secrets.env, as `npm start`).
#   up       build or reuse the images, start everything, wait until every service is healthy, print addresses
#   down     stop and remove the project's containers, network and volumes; fail if anything is left
#   ARGS...  anything else goes to docker-compose (ps, logs, run --rm -e API_KEY_PEPPER migrate node …)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
# shellcheck source=../local/lib/common.sh
source infra/local/lib/common.sh
# shellcheck source=../../scripts/local-secrets.sh
source scripts/local-secrets.sh
FILE=docker-compose.yml
DEFAULT_PROJECT=audit-trail
SHAPE=()
if [[ "${1:-}" == --cluster ]]; then
  FILE=docker-compose.cluster.yml DEFAULT_PROJECT=audit-cluster SHAPE=(--cluster)
  shift
fi
PROJECT="${COMPOSE_PROJECT_NAME:-$DEFAULT_PROJECT}"
STATE="$DATA_DIR/compose/$PROJECT"
UP_TIMEOUT="${COMPOSE_UP_TIMEOUT:-300}"
log() { echo "compose: $*" >&2; }

compose() { docker-compose -p "$PROJECT" -f "$ROOT/$FILE" "$@"; }
project_filter() { echo "label=com.docker.compose.project=$PROJECT"; }

# Podman runs health checks from systemd timers; without systemd (our machines) nothing runs them, a container
# stays `starting` and compose waits forever on service_healthy. This loop runs them instead: at the 5 s interval
# docker-compose.yml gives every check until `up` has seen every service healthy, and whenever a container is not
# (started again after a crash); else once a minute. Each check is a podman process, and the cluster's 27
# containers checked every 5 s took a quarter of a core of this 2-core machine.
ticker_loop() {
  local ids states
  while true; do
    ids=$(podman ps -q --filter "$(project_filter)")
    for id in $ids; do
      podman healthcheck run "$id" >/dev/null 2>&1 || true
    done
    # shellcheck disable=SC2086 # one id per word
    states=$([[ -z "$ids" ]] || podman inspect --format '{{if .State.Health}}{{.State.Health.Status}}{{end}}' $ids)
    if [[ -f "$STATE/healthy" ]] && ! grep -qvE '^(healthy)?$' <<<"$states"; then sleep 60; else sleep 5; fi
  done
}
ticker_start() {
  [[ -d /run/systemd/system ]] && return 0
  pid_alive "$(read_pid "$STATE/ticker.pid")" && return 0
  mkdir -p "$STATE"
  launch_detached "$STATE/ticker.pid" "$STATE/ticker.log" bash "$0" "${SHAPE[@]}" health-ticker
}
ticker_stop() {
  local pid
  pid="$(read_pid "$STATE/ticker.pid")" || true
  [[ -z "$pid" ]] || kill "$pid" 2>/dev/null || true
  rm -f "$STATE/ticker.pid"
}

health_of() { podman inspect --format '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$1"; }

wait_healthy() {
  local deadline=$((SECONDS + UP_TIMEOUT)) waiting id name
  while ((SECONDS < deadline)); do
    waiting=()
    for id in $(podman ps -a -q --filter "$(project_filter)"); do
      name="$(podman inspect --format '{{.Name}}' "$id")"
      # No health check (the migrate job, done by now): nothing to wait for.
      case "$(health_of "$id")" in
        healthy | none | '') ;;
        *) waiting+=("$name") ;;
      esac
    done
    ((${#waiting[@]})) || return 0
    sleep 2
  done
  log "not healthy after ${UP_TIMEOUT}s: ${waiting[*]}"
  compose ps >&2 || true
  return 1
}

up() {
  bash infra/containers/build-images.sh
  mkdir -p "$STATE"
  ensure_dev_secrets
  local started=$SECONDS
  rm -f "$STATE/healthy"
  ticker_start
  log "starting project $PROJECT (log: $STATE/up.log)"
  compose up -d >"$STATE/up.log" 2>&1 || { tail -n 40 "$STATE/up.log" >&2; exit 1; }
  wait_healthy
  touch "$STATE/healthy"
  log "every service healthy $((SECONDS - started)) s after compose up"
  cat <<TEXT
Audit trail service is up (compose project $PROJECT, $FILE):
  gateway    http://127.0.0.1:${GATEWAY_PUBLISH_PORT:-8080}/api/v2/public/audit/events
  ingest     http://127.0.0.1:${INGEST_PUBLISH_PORT:-8081}/internal/v1/events
  ingest token: INGEST_TOKEN (from your environment or .data/secrets.env)
  stop with: npm run compose -- ${SHAPE[*]/%/ }down
TEXT
}

down() {
  # Against Podman, docker-compose 1.29 exits 1 when the network or a volume is already gone: what is left decides.
  compose down -v --remove-orphans >"$STATE/down.log" 2>&1 || true
  ticker_stop
  rm -f "$STATE/healthy"
  local left
  left="$(podman ps -a -q --filter "$(project_filter)"; podman volume ls -q --filter "$(project_filter)"
    podman network ls -q --filter "$(project_filter)")"
  if [[ -n "$left" ]]; then
    tail -n 40 "$STATE/down.log" >&2
    log "left after down: $left"
    exit 1
  fi
  log "project $PROJECT removed: no container, volume or network left"
}

mkdir -p "$STATE"
# Assigned first, each alone: `eval "$(…)"` would go on without the variables when the script fails.
engine="$(bash infra/containers/podman.sh socket)"
eval "$engine"
images="$(bash infra/containers/build-images.sh env)"
eval "$images"
export DOCKER_HOST KAFKA_IMAGE S3PROXY_IMAGE CLICKHOUSE_IMAGE POSTGRES_IMAGE ZOOKEEPER_IMAGE HAPROXY_IMAGE AUDIT_IMAGE
# ClickHouse's ulimits in compose may not exceed this machine's: below ClickHouse's advice, the ones podman.sh
# gives every container.
hard="$(ulimit -Hn)"
if [[ "$hard" != unlimited && "$hard" -lt 262144 ]]; then
  export CLICKHOUSE_NOFILE="${CLICKHOUSE_NOFILE:-$hard}" CLICKHOUSE_NPROC="${CLICKHOUSE_NPROC:-$hard}"
fi
load_dev_secrets

case "${1:-}" in
  up) up ;;
  down) down ;;
  health-ticker) ticker_loop ;;
  '' | -h | --help)
    sed -n '2,8p' "$0" >&2
    exit 2
    ;;
  *) compose "$@" ;;
esac
