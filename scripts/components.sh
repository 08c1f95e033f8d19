# Sourced by scripts/test.sh and scripts/test-containers.sh: where the tests' Kafka, ClickHouse, Postgres and
# S3Proxy come from (docs/testing.md "Components").
#   AUDIT_TEST_COMPONENTS=local       the local stack (infra/local/stack.sh): processes on this machine
#   AUDIT_TEST_COMPONENTS=containers  containers started with testcontainers (scripts/test-components.ts), from
#                                     KAFKA_IMAGE, CLICKHOUSE_IMAGE, POSTGRES_IMAGE and S3PROXY_IMAGE or the
#                                     upstream images
#   unset or auto                     local where the stack can run (Debian's apt-get as root, or its tools already
#                                     installed); else containers where a Docker-compatible engine answers; else
#                                     local, whose install then says what is missing

local_stack_possible() {
  { [ "$(uname -s)" = Linux ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; } ||
    { command -v clickhouse-server >/dev/null && command -v java >/dev/null && command -v mvn >/dev/null &&
      ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }
}

container_engine_answers() {
  local socket="${DOCKER_HOST:-unix:///var/run/docker.sock}"
  if [ "${socket#unix://}" != "$socket" ]; then
    curl -fsS --max-time 5 --unix-socket "${socket#unix://}" http://d/_ping >/dev/null 2>&1 && return 0
  fi
  command -v docker >/dev/null && docker info >/dev/null 2>&1
}

components_mode() {
  case "${AUDIT_TEST_COMPONENTS:-auto}" in
    local | containers) echo "$AUDIT_TEST_COMPONENTS" ;;
    auto)
      if local_stack_possible; then
        echo local
      elif container_engine_answers; then
        echo containers
      else
        echo local
      fi
      ;;
    *)
      echo "AUDIT_TEST_COMPONENTS must be local, containers or auto (got '$AUDIT_TEST_COMPONENTS')" >&2
      return 1
      ;;
  esac
}

# remove_test_leftovers: what test runs that were killed left behind, so that it neither runs beside this run nor
# fills the disk: component containers whose holder process (label audit-trail.test-owner) has ended, stopped ones
# of runs from before that label, and the compose projects of the smoke tests and the image bench
# (audit-smoke-PID-…, audit-cluster-PID-…, audit-bench-PID-…) whose process has ended. A process is looked up on this machine only:
# runs sharing one engine from several machines or PID namespaces at once are not supported. It never fails the
# run (what it cannot remove, it names). Called before any container of the run starts.
remove_test_leftovers() {
  local engine id owner running project shape
  engine="$(command -v podman || command -v docker)" || return 0
  for id in $("$engine" ps -a -q --filter label=audit-trail.test-run); do
    read -r running owner < <("$engine" inspect \
      --format '{{.State.Running}} {{index .Config.Labels "audit-trail.test-owner"}}' "$id" 2>/dev/null) || continue
    if [[ "$owner" =~ ^[0-9]+$ ]]; then
      ps -p "$owner" >/dev/null 2>&1 && continue
    elif [ "$running" = true ]; then
      continue
    fi
    if "$engine" rm -f -v "$id" >/dev/null; then
      echo "components: removed ${id:0:12}, left by a test run that ended"
    else
      echo "components: could not remove ${id:0:12}, left by a test run that ended" >&2
    fi
  done
  [ "${engine##*/}" = podman ] || return 0
  for project in $(podman ps -a --filter label=com.docker.compose.project \
    --format '{{index .Labels "com.docker.compose.project"}}' | sort -u); do
    [[ "$project" =~ ^audit-(smoke|bench|cluster)-([0-9]+)- ]] || continue
    ps -p "${BASH_REMATCH[2]}" >/dev/null 2>&1 && continue
    shape=()
    [ "${BASH_REMATCH[1]}" != cluster ] || shape=(--cluster)
    # docker-compose reads the whole file also to take a project down: its mandatory secrets need values.
    if INGEST_TOKEN=x API_KEY_PEPPER=x CURSOR_SECRET=x WEBHOOK_SECRET_KEY=x COMPOSE_PROJECT_NAME="$project" \
      bash infra/containers/compose.sh "${shape[@]}" down >/dev/null; then
      echo "components: removed compose project $project, left by a test run that ended"
    else
      echo "components: could not remove compose project $project, left by a test run that ended" >&2
    fi
  done
  return 0
}

# start_component_containers: runs scripts/test-components.ts in the background until
# stop_component_containers, and exports the variables that point the tests at its containers.
start_component_containers() {
  local env_file=.data/test-components.env log=.data/logs/test-components.log i
  mkdir -p .data/logs
  rm -f "$env_file"
  echo "Starting Kafka, ClickHouse, Postgres and S3Proxy in containers (log: $log)..."
  node --disable-warning=TimeoutNegativeWarning --import tsx scripts/test-components.ts "$env_file" >"$log" 2>&1 &
  COMPONENTS_HOLDER=$!
  for ((i = 0; i < 600; i++)); do
    [ -f "$env_file" ] && break
    kill -0 "$COMPONENTS_HOLDER" 2>/dev/null || break
    sleep 1
  done
  if [ ! -f "$env_file" ]; then
    tail -n 40 "$log" >&2
    echo "the component containers did not start" >&2
    return 1
  fi
  # shellcheck disable=SC1090 # written by scripts/test-components.ts
  source "$env_file"
  # Scripts started from here on (the API tools' services) take these components, not the local stack.
  export AUDIT_EXTERNAL_STACK=true
}

stop_component_containers() {
  [ -n "${COMPONENTS_HOLDER:-}" ] || return 0
  kill -TERM "$COMPONENTS_HOLDER" 2>/dev/null || true
  wait "$COMPONENTS_HOLDER" 2>/dev/null || true
  COMPONENTS_HOLDER=
  unset AUDIT_EXTERNAL_STACK
}
