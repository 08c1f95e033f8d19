# ClickHouse 18.16 from Debian as four servers: shard 01 on n1 and n2, shard 02 on n3 and n4.
# shellcheck shell=bash

chnode_home() { echo "$CLUSTER_HOME/$1"; }

# ch_queue_install is the local stack's: clickhouse-server, clickhouse-client, curl.
chnode_queue_install() { ch_queue_install; }

# HTTP, native (tcp) and interserver port of node k.
chnode_ports() {
  local k
  k="$(node_index "$1")"
  echo "$((CLUSTER_CH_HTTP_PORT + k - 1)) $((CLUSTER_CH_TCP_PORT + k - 1)) $((CLUSTER_CH_INTERSERVER_PORT + k - 1))"
}

chnode_pid() { read_pid "$(chnode_home "$1")/clickhouse-server.pid"; }
chnode_match() { echo "$(chnode_home "$1")/etc/config.xml"; }
chnode_logs() {
  local log
  log="$(chnode_home "$1")/log"
  printf '%s\n' "$log/clickhouse-server.err.log" "$log/console.log"
}
chnode_http() { echo "http://$HOST:$((CLUSTER_CH_HTTP_PORT + $(node_index "$1") - 1))"; }

chnode_addr() {
  local k
  k="$(node_index "$1")"
  echo "$HOST:$((CLUSTER_CH_HTTP_PORT + k - 1)) (http) $HOST:$((CLUSTER_CH_TCP_PORT + k - 1)) (native)"
}

# Ready: the server answers a query, and that query reads ZooKeeper.
chnode_ready() {
  [[ "$(curl -sf --max-time 3 --data-binary "SELECT count() FROM system.zookeeper WHERE path = '/'" \
    "$(chnode_http "$1")/" 2>/dev/null)" =~ ^[0-9]+$ ]]
}

# 18.16's DDL worker ends for good on some faults (infra/cluster/README.md "Faults of 18.16"): on some ZooKeeper
# reconnections ("DDLWorker: Unexpected error, will terminate", for instance when the ZooKeeper leader dies soon
# after the node started), and when both replicas of a shard run one ALTER of a replicated table ON CLUSTER
# ("DDLWorker: Unexpected ZooKeeper error: ... Node exists ... Terminating."). The node then runs no ON CLUSTER
# statement, and every one waits for it, until it restarts. True when that happened since the node last started.
chnode_ddl_stopped() {
  # Not a pipe: awk leaves early, and tac's broken pipe would fail the pipeline under pipefail.
  awk '
    /DDLWorker: Unexpected (error, will terminate|ZooKeeper error)/ { stopped = 1; exit }
    /Starting ClickHouse/ { exit }
    END { exit !stopped }' < <(tac "$(chnode_home "$1")/log/clickhouse-server.log" 2>/dev/null)
}

chnode_detail() {
  if chnode_ddl_stopped "$1"; then echo " (its DDL worker stopped: \`up\` or \`mend\` restarts it)"; fi
}

# The running nodes whose DDL worker stopped.
chnode_without_ddl() {
  local name
  for name in "$@"; do
    if proc_running "$name" && chnode_ddl_stopped "$name"; then echo "$name"; fi
  done
}

# Stops the running nodes whose DDL worker stopped, for the start that follows to bring them back whole.
chnode_stop_without_ddl() {
  local name
  for name in "$@"; do
    if proc_running "$name" && chnode_ddl_stopped "$name"; then
      note "$name: its DDL worker stopped (a fault of 18.16); restarting it"
      stop_group "$name"
    fi
  done
}

chnode_launch() {
  local name="$1" bin k i
  k="$(node_index "$name")"
  bin="$(ch_server_bin)" || proc_fail "$name" "clickhouse-server binary not found"
  # shellcheck disable=SC2034 # render reads these by name.
  local CH_HOME CH_HTTP_PORT CH_TCP_PORT CH_INTERSERVER_PORT CH_REPLICA="n$k" CH_SHARD=01
  CH_HOME="$(chnode_home "$name")"
  # shellcheck disable=SC2034
  read -r CH_HTTP_PORT CH_TCP_PORT CH_INTERSERVER_PORT <<<"$(chnode_ports "$name")"
  # shellcheck disable=SC2034
  ((k <= 2)) || CH_SHARD=02
  for i in 1 2 3 4; do local "CH_TCP_$i=$((CLUSTER_CH_TCP_PORT + i - 1))"; done
  for i in 1 2 3; do local "ZK_CLIENT_$i=$((CLUSTER_ZK_CLIENT_PORT + i - 1))"; done

  local etc="$CH_HOME/etc"
  mkdir -p "$etc/config.d" "$CH_HOME/log" "$CH_HOME/data" "$CH_HOME/tmp" "$CH_HOME/user_files" \
    "$CH_HOME/format_schemas"
  render "$CLUSTER_DIR/clickhouse/config.xml" "$etc/config.xml" \
    CH_HOME CH_HTTP_PORT CH_TCP_PORT CH_INTERSERVER_PORT CH_SHARD CH_REPLICA
  render "$CLUSTER_DIR/clickhouse/cluster.xml" "$etc/config.d/cluster.xml" \
    CH_TCP_1 CH_TCP_2 CH_TCP_3 CH_TCP_4 ZK_CLIENT_1 ZK_CLIENT_2 ZK_CLIENT_3
  render "$STACK_DIR/clickhouse/users.xml" "$etc/users.xml"
  # A pid file left by a crash would make the server refuse to start.
  rm -f "$CH_HOME/clickhouse-server.pid"
  # 18.16 writes its <pid> file only in --daemon mode; the daemon forks, calls setsid and leaves our stdio.
  (cd "$CH_HOME" && "$bin" --config-file="$etc/config.xml" --daemon \
    >>"$CH_HOME/log/console.log" 2>&1 </dev/null 9>&-) ||
    proc_fail "$name" "clickhouse-server --daemon failed"
}
