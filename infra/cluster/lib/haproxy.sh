# HAProxy from Debian in front of the ClickHouse nodes' HTTP ports, the Postgres primary, the gateways and ingest. Run by this script,
# not by the system service, which Debian's package does not start here.
# shellcheck shell=bash

haproxy_home() { echo "$CLUSTER_HOME/haproxy"; }

haproxy_bin() {
  local b
  for b in "$(command -v haproxy 2>/dev/null)" /usr/sbin/haproxy; do
    [[ -n "$b" && -x "$b" ]] && { echo "$b"; return 0; }
  done
  return 1
}

haproxy_queue_install() {
  need_pkg haproxy haproxy haproxy_bin
  need_pkg haproxy curl command -v curl
}

haproxy_ports() {
  echo "$CLUSTER_CH_PROXY_PORT $CLUSTER_PG_PROXY_PORT $CLUSTER_GATEWAY_PROXY_PORT $CLUSTER_INGEST_PROXY_PORT"
}
haproxy_pid() { read_pid "$(haproxy_home)/haproxy.pid"; }
haproxy_match() { echo "-f $(haproxy_home)/haproxy.cfg"; }
haproxy_logs() { echo "$(haproxy_home)/haproxy.log"; }
haproxy_addr() {
  echo "$HOST:$CLUSTER_CH_PROXY_PORT (ClickHouse http), :$CLUSTER_PG_PROXY_PORT (Postgres primary)," \
    ":$CLUSTER_GATEWAY_PROXY_PORT (gateways), :$CLUSTER_INGEST_PROXY_PORT (ingest)"
}

# Ready: a ClickHouse node answers through the frontend.
haproxy_ready() {
  [[ "$(curl -sf --max-time 3 "http://$HOST:$CLUSTER_CH_PROXY_PORT/ping" 2>/dev/null)" == "Ok." ]]
}

# Renders the config with the current addresses (the primary's among them) and checks it.
haproxy_config() {
  local home bin i
  home="$(haproxy_home)"
  bin="$(haproxy_bin)" || proc_fail haproxy "haproxy binary not found"
  for i in 1 2 3 4; do local "CH_HTTP_$i=$((CLUSTER_CH_HTTP_PORT + i - 1))"; done
  for i in 1 2; do
    local "GATEWAY_$i=$(service_port "gateway-$i")" "INGEST_$i=$(service_port "ingest-$i")"
  done
  # shellcheck disable=SC2034 # render reads them by name.
  local PG_PRIMARY_PORT HAPROXY_DIR="$CLUSTER_DIR/haproxy"
  # shellcheck disable=SC2034
  PG_PRIMARY_PORT="$(pgnode_port "$(pg_primary)")"
  render "$CLUSTER_DIR/haproxy/haproxy.cfg" "$home/haproxy.cfg" CLUSTER_CH_PROXY_PORT CH_HTTP_1 CH_HTTP_2 CH_HTTP_3 \
    CH_HTTP_4 CLUSTER_PG_PROXY_PORT PG_PRIMARY_PORT CLUSTER_GATEWAY_PROXY_PORT GATEWAY_1 GATEWAY_2 \
    CLUSTER_INGEST_PROXY_PORT INGEST_1 INGEST_2 HAPROXY_DIR
  "$bin" -c -q -f "$home/haproxy.cfg" >>"$home/haproxy.log" 2>&1 || proc_fail haproxy "invalid $home/haproxy.cfg"
}

haproxy_launch() {
  local home bin
  home="$(haproxy_home)"
  haproxy_config
  bin="$(haproxy_bin)"
  # In the foreground (-db) under launch_detached rather than -D: its log lines go to stdout, into haproxy.log.
  launch_detached "$home/haproxy.pid" "$home/haproxy.log" "$bin" -f "$home/haproxy.cfg" -db ||
    proc_fail "$1" "haproxy did not start"
}

# A new process with the config rendered anew takes over the ports (-sf): the old one stops accepting and ends
# once its connections have, cutting those still open after 30 s (hard-stop-after). New connections are never
# refused. The new process has taken over once the old one no longer listens; one that died starting is an error.
haproxy_reload() {
  local home bin old new i
  home="$(haproxy_home)"
  old="$(haproxy_pid)"
  haproxy_config
  bin="$(haproxy_bin)"
  launch_detached "$home/haproxy.pid" "$home/haproxy.log" "$bin" -f "$home/haproxy.cfg" -db -sf "$old" ||
    proc_fail haproxy "haproxy did not start again"
  new="$(haproxy_pid)"
  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    pid_alive "$new" || proc_fail haproxy "the reloaded haproxy exited; the old one (pid $old) still serves"
    # Not `grep -q` in a pipeline: its early exit would fail the pipe under pipefail.
    # shellcheck disable=SC2143
    [[ -z "$(ss -ltnpH "sport = :$CLUSTER_PG_PROXY_PORT" 2>/dev/null | grep "pid=$old,")" ]] && return 0
    sleep 0.1
  done
  proc_fail haproxy "the reloaded haproxy did not take over from pid $old"
}
