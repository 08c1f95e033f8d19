#!/usr/bin/env bash
# Local component stack: PostgreSQL 15, ClickHouse 18.16, Kafka 3.9 (KRaft), S3Proxy 4.1 (S3 on the filesystem).
# Everything listens on 127.0.0.1 only, on non-default ports, with data under
# $DATA_DIR (default <repo>/.data). See infra/local/README.md.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: stack.sh COMMAND
  up                    install what is missing, start everything, wait until ready
  down                  stop everything (data is kept)
  status                one line per component; exit 0 if all up, 3 otherwise
  install               apt packages + Kafka and S3Proxy jars only, start nothing
  env                   print export lines for the app (DATABASE_URL, ...)
  start COMPONENT       install if needed and start one of: postgres clickhouse kafka s3proxy
  stop COMPONENT        stop one component, keeping its data
  kafka-jars            fetch the Kafka jars if needed and print their directory (the container image takes them)
  s3proxy-jar           fetch the S3Proxy jar if needed and print its path (the container image takes it)
  kafka-run CLASS ARGS  run a Kafka CLI class with the stack's jars, e.g.
                        kafka-run org.apache.kafka.tools.TopicCommand --bootstrap-server 127.0.0.1:15092 --list
env: DATA_DIR PG_PORT CH_HTTP_PORT CH_TCP_PORT CH_INTERSERVER_PORT KAFKA_PORT
     KAFKA_CONTROLLER_PORT S3_PORT START_TIMEOUT STOP_TIMEOUT
EOF
}

# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source=lib/postgres.sh
source "$STACK_DIR/lib/postgres.sh"
# shellcheck source=lib/clickhouse.sh
source "$STACK_DIR/lib/clickhouse.sh"
# shellcheck source=lib/kafka.sh
source "$STACK_DIR/lib/kafka.sh"
# shellcheck source=lib/s3proxy.sh
source "$STACK_DIR/lib/s3proxy.sh"

# Serialise mutating commands: a test harness and a developer may run `up` at once.
# fd 9 is closed for every daemon we spawn, or it would hold the lock forever.
take_lock() {
  exec 9>"$DATA_DIR/.stack.lock"
  flock -w 900 9 || die "another stack.sh is still running (lock: $DATA_DIR/.stack.lock)"
}

check_component() {
  in_list "${1:-}" "${COMPONENTS[@]}" || die "unknown component '${1:-}' (expected one of: ${COMPONENTS[*]})"
}

short() {
  case "$1" in
    postgres) echo pg ;;
    clickhouse) echo ch ;;
    kafka) echo kafka ;;
    s3proxy) echo s3proxy ;;
  esac
}

install_components() {
  local c
  for c in "$@"; do "$(short "$c")_queue_install"; done
  apt_install_queued
  if in_list kafka "$@"; then kafka_install_jars; fi
  if in_list s3proxy "$@"; then s3proxy_install_jar; fi
}

status_all() {
  local rc=0 c
  for c in "${COMPONENTS[@]}"; do
    "$(short "$c")_status" || rc=3
  done
  return "$rc"
}

cmd="${1:-}"
case "$cmd" in
  up)
    init_data_dir
    take_lock
    install_components "${COMPONENTS[@]}"
    pg_start
    ch_start
    kafka_start
    s3proxy_start
    status_all
    ;;
  down)
    init_data_dir
    take_lock
    s3proxy_stop
    kafka_stop
    ch_stop
    pg_stop
    status_all || true
    ;;
  status)
    # Read-only: resolve DATA_DIR without creating it.
    [[ "$DATA_DIR" == /* ]] || DATA_DIR="$PWD/$DATA_DIR"
    status_all || exit 3
    ;;
  install)
    init_data_dir
    take_lock
    install_components "${COMPONENTS[@]}"
    ;;
  env)
    echo "export DATABASE_URL=postgres://audit:audit@$HOST:$PG_PORT/audit"
    echo "export CLICKHOUSE_URL=http://$HOST:$CH_HTTP_PORT"
    # The gateway reads with a read-only user (docs/operations.md "ClickHouse users"); npm start passes it on.
    echo "export GATEWAY_CLICKHOUSE_USER=audit_reader"
    echo "export KAFKA_BROKERS=$HOST:$KAFKA_PORT"
    # Where export files go with EXPORT_STORAGE=s3; the filesystem stays the default, so EXPORT_STORAGE is not set.
    # `ops migrate` creates the bucket.
    echo "export EXPORT_S3_ENDPOINT=http://$HOST:$S3_PORT"
    echo "export EXPORT_S3_BUCKET=$S3_BUCKET"
    echo "export EXPORT_S3_ACCESS_KEY_ID=$S3_IDENTITY"
    echo "export EXPORT_S3_SECRET_ACCESS_KEY=$S3_CREDENTIAL"
    ;;
  start | stop)
    check_component "${2:-}"
    init_data_dir
    take_lock
    if [[ "$cmd" == start ]]; then
      install_components "$2"
    fi
    "$(short "$2")_$cmd"
    "$(short "$2")_status" || { [[ "$cmd" == stop ]] || exit 3; }
    ;;
  kafka-jars)
    init_data_dir
    take_lock
    install_components kafka
    kafka_paths
    echo "$KAFKA_LIB"
    ;;
  s3proxy-jar)
    init_data_dir
    take_lock
    install_components s3proxy
    s3proxy_paths
    echo "$S3_JAR"
    ;;
  kafka-run)
    shift
    (($#)) || die "kafka-run: missing class name"
    init_data_dir
    kafka_tool "$@"
    ;;
  -h | --help | help)
    usage
    ;;
  *)
    usage >&2
    exit 2
    ;;
esac
