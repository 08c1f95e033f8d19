# Settings and process bookkeeping for cluster.sh. Sourced, never executed.
# shellcheck shell=bash source-path=SCRIPTDIR

# The local stack's helpers (render, launch_detached, stop_pid, fail, apt, ...) and its engine helpers are reused
# as they are; they also set DATA_DIR, HOST, START_TIMEOUT and STOP_TIMEOUT.
# shellcheck source=../../local/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../local/lib/common.sh"
# shellcheck source=../../local/lib/clickhouse.sh
source "$STACK_DIR/lib/clickhouse.sh"
# shellcheck source=../../local/lib/kafka.sh
source "$STACK_DIR/lib/kafka.sh"
# shellcheck source=../../local/lib/postgres.sh
source "$STACK_DIR/lib/postgres.sh"

# shellcheck disable=SC2034 # used by the other files of lib/
CLUSTER_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Ports. Each *_PORT is node 1's; node k listens on that port + k - 1. The CLUSTER_ prefix keeps the local stack's
# variables (PG_PORT, KAFKA_PORT, ...) from moving the cluster.
CLUSTER_ZK_CLIENT_PORT="${CLUSTER_ZK_CLIENT_PORT:-21181}"
CLUSTER_ZK_QUORUM_PORT="${CLUSTER_ZK_QUORUM_PORT:-21281}"
CLUSTER_ZK_ELECTION_PORT="${CLUSTER_ZK_ELECTION_PORT:-21381}"
CLUSTER_CH_PROXY_PORT="${CLUSTER_CH_PROXY_PORT:-22100}"
CLUSTER_CH_HTTP_PORT="${CLUSTER_CH_HTTP_PORT:-22101}"
CLUSTER_CH_TCP_PORT="${CLUSTER_CH_TCP_PORT:-22201}"
CLUSTER_CH_INTERSERVER_PORT="${CLUSTER_CH_INTERSERVER_PORT:-22301}"
CLUSTER_KAFKA_PORT="${CLUSTER_KAFKA_PORT:-23091}"
CLUSTER_KAFKA_CONTROLLER_PORT="${CLUSTER_KAFKA_CONTROLLER_PORT:-23191}"
CLUSTER_PG_PORT="${CLUSTER_PG_PORT:-23432}"
# HAProxy's frontend of whichever Postgres node is the primary: the services' DATABASE_URL.
CLUSTER_PG_PROXY_PORT="${CLUSTER_PG_PROXY_PORT:-23430}"
# HAProxy's frontends of the gateways and of ingest, and the services' own ports (lib/service.sh).
CLUSTER_GATEWAY_PROXY_PORT="${CLUSTER_GATEWAY_PROXY_PORT:-28080}"
CLUSTER_INGEST_PROXY_PORT="${CLUSTER_INGEST_PROXY_PORT:-28081}"
CLUSTER_SERVICE_PORT="${CLUSTER_SERVICE_PORT:-28100}"

ZK_NODES=(zookeeper-1 zookeeper-2 zookeeper-3)
CH_NODES=(clickhouse-n1 clickhouse-n2 clickhouse-n3 clickhouse-n4)
BROKERS=(kafka-1 kafka-2 kafka-3)
# Which of the two is the primary is state, not a name: `promote` turns the standby into the primary.
PG_NODES=(postgres-1 postgres-2)
# shellcheck disable=SC2034 # used by cluster.sh
ENGINES=("${ZK_NODES[@]}" "${CH_NODES[@]}" "${BROKERS[@]}" "${PG_NODES[@]}" haproxy)
# shellcheck source=service.sh
source "$(dirname "${BASH_SOURCE[0]}")/service.sh"
# shellcheck disable=SC2034 # used by cluster.sh
PROCESSES=("${ENGINES[@]}" "${SERVICES[@]}")

# Names this command launched, for the checks that follow a launch (cluster.sh).
LAUNCHED=()

# The cluster's files live apart from the local stack's, in $DATA_DIR/cluster; the apt and maven logs too.
cluster_paths() {
  [[ "$DATA_DIR" == /* ]] || DATA_DIR="$PWD/$DATA_DIR"
  CLUSTER_HOME="$DATA_DIR/cluster"
  LOG_DIR="$CLUSTER_HOME/logs"
}

cluster_init() {
  init_data_dir
  cluster_paths
  mkdir -p "$LOG_DIR"
}

# node_index NAME: the node's number, 1-based (zookeeper-2 -> 2, clickhouse-n3 -> 3).
node_index() { echo "${1##*[!0-9]}"; }

# Each kind of process implements KIND_ports, _pid, _match, _launch, _ready, _logs, _addr, _queue_install and
# may implement KIND_detail (a note for `status`) and KIND_install_jars.
kind_of() {
  case "$1" in
    zookeeper-[1-3]) echo zk ;;
    clickhouse-n[1-4]) echo chnode ;;
    kafka-[1-3]) echo broker ;;
    postgres-[12]) echo pgnode ;;
    haproxy) echo haproxy ;;
    gateway-[12] | ingest-[12] | projector-[12] | dispatcher-[12] | exporter-[12] | notary-[12] | custodian-[12]) echo service ;;
    *) return 1 ;;
  esac
}

# proc OP NAME: OP for the process NAME, e.g. `proc ready kafka-2`.
proc() { "$(kind_of "$2")_$1" "$2"; }

# The command line must name this process's own config: a pid file left by a crash may point at a reused pid.
proc_running() {
  local pid
  pid="$(proc pid "$1")" || return 1
  [[ -n "$pid" ]] && pid_matches "$pid" "$(proc match "$1")"
}

# Prints the ports a running process was launched with when they differ from the ones wanted now.
ports_changed() {
  local was
  was="$(cat "$CLUSTER_HOME/$1/.ports" 2>/dev/null)" || return 1
  [[ "$was" != "$(proc ports "$1")" ]] && echo "$was"
}

proc_fail() {
  local name="$1" msg="$2" logs
  mapfile -t logs < <(proc logs "$name")
  fail "$name" "$msg" "${logs[@]}"
}

# start_group NAME...: launches those not running, then waits until every one is ready. A whole group is launched
# before any wait, since ZooKeeper and the KRaft controllers serve only once a majority of their peers runs.
start_group() {
  local name i other ports left pending=() launched=() t0="$SECONDS"
  for name in "$@"; do
    if proc_running "$name"; then
      if other="$(ports_changed "$name")"; then
        proc_fail "$name" "already running with ports $other, not $(proc ports "$name"); stop it first to change ports"
      fi
      continue
    fi
    read -r -a ports <<<"$(proc ports "$name")"
    ensure_ports_free "$name" "${ports[@]}"
    mkdir -p "$CLUSTER_HOME/$name"
    proc ports "$name" >"$CLUSTER_HOME/$name/.ports"
    proc launch "$name"
    launched+=("$name")
  done
  pending=("$@")
  for ((i = 0; ; i++)); do
    left=()
    for name in "${pending[@]}"; do
      proc ready "$name" && continue
      # Every kind has its pid file within a few seconds of the launch; none after 10 s means it died starting.
      ((i < 20)) || proc_running "$name" || proc_fail "$name" "exited during startup"
      left+=("$name")
    done
    ((${#left[@]})) || break
    ((i < START_TIMEOUT * 2)) ||
      proc_fail "${left[0]}" "not ready after ${START_TIMEOUT}s (not ready either: ${left[*]:1})"
    pending=("${left[@]}")
    sleep 0.5
  done
  ((${#launched[@]})) || return 0
  note "started ${launched[*]} in $((SECONDS - t0))s"
  LAUNCHED+=("${launched[@]}")
}

# Postgres takes SIGINT as its fast shutdown; SIGTERM would wait for every client to disconnect.
stop_signal() {
  case "$1" in
    postgres-*) echo INT ;;
    *) echo TERM ;;
  esac
}

# stop_group NAME...: signals all at once, then waits for each (stop_pid: SIGKILL after STOP_TIMEOUT). At once,
# because the last of three Kafka brokers stopped one by one waits minutes for a quorum that is gone.
stop_group() {
  local name pids=() names=() i
  for name in "$@"; do
    proc_running "$name" || continue
    names+=("$name")
    pids+=("$(proc pid "$name")")
    kill "-$(stop_signal "$name")" "${pids[-1]}" 2>/dev/null || true
  done
  for i in "${!names[@]}"; do
    stop_pid "${names[i]}" "${pids[i]}"
  done
}

# kill_proc NAME: SIGKILL, as a crash would. It waits until the process and its children are gone (a Postgres
# backend exits by itself once its postmaster is gone), so a `start` right after finds ports and memory free. Gone
# means reaped too: Postgres takes the zombie of its old postmaster for a running one, and this machine's init
# reaps only every few seconds.
kill_proc() {
  local name="$1" pid children i
  proc_running "$name" || { note "$name: not running"; return 0; }
  pid="$(proc pid "$name")"
  mapfile -t children < <(ps -o pid= --ppid "$pid" | tr -d ' ')
  kill -KILL "$pid" 2>/dev/null || true
  for pid in "$pid" "${children[@]}"; do
    for ((i = 0; i < 150; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
  done
  note "$name: killed"
}

status_one() {
  local name="$1" state=down why="" other kind
  kind="$(kind_of "$name")"
  if proc_running "$name"; then
    if other="$(ports_changed "$name")"; then
      why=" (running with ports $other)"
    elif proc ready "$name"; then
      state=up
      if declare -F "${kind}_detail" >/dev/null; then why="$("${kind}_detail" "$name")" || true; fi
    else
      why=" (pid $(proc pid "$name") alive but not ready)"
    fi
  fi
  status_line "$(printf '%-16s' "$name")" "$state" "$(proc addr "$name")$why"
  [[ "$state" == up ]]
}

# install_for NAME...: the apt packages and jars those processes need, if missing.
install_for() {
  local name kind kinds=()
  for name in "$@"; do
    kind="$(kind_of "$name")"
    in_list "$kind" "${kinds[@]}" || kinds+=("$kind")
  done
  for kind in "${kinds[@]}"; do "${kind}_queue_install"; done
  apt_install_queued
  for kind in "${kinds[@]}"; do
    if declare -F "${kind}_install_jars" >/dev/null; then "${kind}_install_jars"; fi
  done
}
