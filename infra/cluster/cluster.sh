#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The cluster shape on this one machine: ZooKeeper ×3, ClickHouse 2 shards × 2 replicas behind HAProxy, Kafka ×3
# (KRaft), Postgres primary + hot standby behind HAProxy, and two of each service, the gateways and ingest behind
# HAProxy.
# Loopback only, on ports apart from the local stack's (infra/local), with data under $DATA_DIR/cluster. See
# infra/cluster/README.md.
set -euo pipefail

usage() {
  cat <<'EOF_USAGE'
usage: cluster.sh COMMAND
  up [engines]  install what is missing, start everything (or the engines only), wait until ready
  down          stop everything (data is kept)
  status [engines]  one line per process; exit 0 if all (or every engine) up, 3 otherwise
  env           print export lines for the app (CLICKHOUSE_URL, KAFKA_BROKERS, DATABASE_URL, ...)
  start NAME    start one process and wait until it is ready
  stop NAME     stop one process gracefully
  kill NAME     SIGKILL one process, as a crash would
  promote       make the Postgres standby the primary (the old primary stopped first) and point HAProxy at it
  mend          restart the running ClickHouse nodes whose DDL worker stopped (a fault of 18.16), nothing else
  zookeeper-jars  fetch the ZooKeeper jars if needed and print their directory (the container image takes them)
NAME: zookeeper-1..3 clickhouse-n1..n4 kafka-1..3 postgres-1..2 haproxy
      gateway-1..2 ingest-1..2 projector-1..2 dispatcher-1..2 exporter-1..2 notary-1..2
      custodian-1..2
env: DATA_DIR CLUSTER_ZK_CLIENT_PORT CLUSTER_ZK_QUORUM_PORT CLUSTER_ZK_ELECTION_PORT CLUSTER_CH_PROXY_PORT
     CLUSTER_CH_HTTP_PORT CLUSTER_CH_TCP_PORT CLUSTER_CH_INTERSERVER_PORT CLUSTER_KAFKA_PORT
     CLUSTER_KAFKA_CONTROLLER_PORT CLUSTER_PG_PORT CLUSTER_PG_PROXY_PORT
     CLUSTER_GATEWAY_PROXY_PORT CLUSTER_INGEST_PROXY_PORT CLUSTER_SERVICE_PORT
     CLUSTER_ZK_HEAP_OPTS CLUSTER_KAFKA_HEAP_OPTS START_TIMEOUT STOP_TIMEOUT
EOF_USAGE
}

LIB="$(dirname "${BASH_SOURCE[0]}")/lib"
# shellcheck source=lib/common.sh
source "$LIB/common.sh"
# shellcheck source=lib/zookeeper.sh
source "$LIB/zookeeper.sh"
# shellcheck source=lib/clickhouse.sh
source "$LIB/clickhouse.sh"
# shellcheck source=lib/kafka.sh
source "$LIB/kafka.sh"
# shellcheck source=lib/postgres.sh
source "$LIB/postgres.sh"
# shellcheck source=lib/haproxy.sh
source "$LIB/haproxy.sh"

# Serialise the commands that change something: a test harness and a developer may run `up` at once.
# fd 9 is closed for every daemon we spawn, or it would hold the lock forever.
take_lock() {
  exec 9>"$CLUSTER_HOME/.cluster.lock"
  flock -w 900 9 || die "another cluster.sh is still running (lock: $CLUSTER_HOME/.cluster.lock)"
}

check_name() {
  kind_of "${1:-}" >/dev/null || die "unknown process '${1:-}' (expected one of: ${PROCESSES[*]})"
}

# status_all [engines]: every process, or the engines only.
status_all() {
  local rc=0 name names=("${PROCESSES[@]}")
  [[ "${1:-}" != engines ]] || names=("${ENGINES[@]}")
  for name in "${names[@]}"; do
    status_one "$name" || rc=3
  done
  return "$rc"
}

all_running() {
  local name
  for name in "$@"; do proc_running "$name" || return 1; done
}

# What a launch needs checked once its whole group is up.
after_launch() {
  local name
  for name in "${LAUNCHED[@]}"; do
    if [[ "$name" == kafka-* ]]; then
      brokers_registered
      return 0
    fi
  done
}

# The engines' addresses, as the services and the tests take them.
print_env() {
  local name nodes=()
  echo "export CLICKHOUSE_URL=http://$HOST:$CLUSTER_CH_PROXY_PORT"
  echo "export CLICKHOUSE_CLUSTER=audit"
  # The gateway reads with a read-only user (docs/operations.md "ClickHouse users").
  echo "export GATEWAY_CLICKHOUSE_USER=audit_reader"
  echo "export KAFKA_BROKERS=$(kafka_brokers_csv)"
  echo "export KAFKA_REPLICATION_FACTOR=3"
  # The primary through HAProxy, whichever node it is; the standby directly, for reads.
  echo "export DATABASE_URL=postgres://audit:audit@$HOST:$CLUSTER_PG_PROXY_PORT/audit"
  echo "export DATABASE_STANDBY_URL=postgres://audit:audit@$HOST:$(pgnode_port "$(pg_standby)")/audit"
  for name in "${CH_NODES[@]}"; do nodes+=("$(chnode_http "$name")"); done
  echo "export CLICKHOUSE_NODE_URLS=$(IFS=,; echo "${nodes[*]}")"
  echo "export GATEWAY_URL=http://$HOST:$CLUSTER_GATEWAY_PROXY_PORT"
  echo "export INGEST_URL=http://$HOST:$CLUSTER_INGEST_PROXY_PORT"
}

cmd="${1:-}"
if [[ "$cmd" == up || "$cmd" == status ]] && [[ -n "${2:-}" && "${2:-}" != engines ]]; then
  usage >&2
  exit 2
fi
case "$cmd" in
  up)
    cluster_init
    take_lock
    install_for "${PROCESSES[@]}"
    # ZooKeeper first: the ClickHouse nodes are ready only once they see it. Then all the rest at once, the standby
    # last since it is made from the running primary.
    start_group "${ZK_NODES[@]}"
    chnode_stop_without_ddl "${CH_NODES[@]}"
    start_group "${CH_NODES[@]}" "${BROKERS[@]}" "$(pg_primary)" haproxy
    pgnode_bootstrap
    start_group "$(pg_standby)"
    after_launch
    # The migrations only when a service is to start: a second `up` of a running cluster stays quick.
    if [[ "${2:-}" != engines ]] && ! all_running "${SERVICES[@]}"; then
      services_prepare
      start_group "${SERVICES[@]}"
    fi
    status_all "${2:-}"
    ;;
  down)
    cluster_init
    take_lock
    # Clients before what they depend on, ZooKeeper last.
    stop_group "${SERVICES[@]}"
    stop_group haproxy "$(pg_standby)"
    stop_group "${CH_NODES[@]}" "${BROKERS[@]}" "$(pg_primary)"
    stop_group "${ZK_NODES[@]}"
    status_all || true
    ;;
  status)
    cluster_paths
    status_all "${2:-}" || exit 3
    ;;
  env)
    cluster_paths
    print_env
    ;;
  start)
    check_name "${2:-}"
    cluster_init
    take_lock
    install_for "$2"
    start_group "$2"
    if [[ "$2" == "$(pg_primary)" ]]; then
      pgnode_bootstrap
      # A running standby reconnects to the restarted primary within seconds: wait for it to stream, as `up` does.
      if proc_running "$(pg_standby)"; then start_group "$(pg_standby)"; fi
    fi
    after_launch
    status_one "$2" || exit 3
    ;;
  stop)
    check_name "${2:-}"
    cluster_init
    take_lock
    stop_group "$2"
    status_one "$2" || true
    ;;
  promote)
    cluster_init
    take_lock
    pgnode_promote
    if proc_running haproxy; then
      haproxy_reload
      start_group haproxy
    fi
    status_one "$(pg_primary)"
    ;;
  mend)
    # Looked for without the lock first: the test tier runs this every few seconds beside commands that hold it.
    cluster_paths
    if [[ -n "$(chnode_without_ddl "${CH_NODES[@]}")" ]]; then
      cluster_init
      take_lock
      mapfile -t stopped < <(chnode_without_ddl "${CH_NODES[@]}")
      if ((${#stopped[@]})); then
        chnode_stop_without_ddl "${stopped[@]}"
        start_group "${stopped[@]}"
      fi
    fi
    ;;
  kill)
    check_name "${2:-}"
    # No lock: a chaos test kills while other commands may run, and a SIGKILL changes no file of ours.
    cluster_paths
    kill_proc "$2"
    ;;
  zookeeper-jars)
    cluster_init
    take_lock
    install_for zookeeper-1
    zk_lib
    ;;
  -h | --help | help)
    usage
    ;;
  *)
    usage >&2
    exit 2
    ;;
esac
