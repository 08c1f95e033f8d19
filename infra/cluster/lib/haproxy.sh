# HAProxy from Debian in front of the ClickHouse nodes' HTTP ports, the gateways and ingest. Run by this script,
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

haproxy_ports() { echo "$CLUSTER_CH_PROXY_PORT $CLUSTER_GATEWAY_PROXY_PORT $CLUSTER_INGEST_PROXY_PORT"; }
haproxy_pid() { read_pid "$(haproxy_home)/haproxy.pid"; }
haproxy_match() { echo "-f $(haproxy_home)/haproxy.cfg"; }
haproxy_logs() { echo "$(haproxy_home)/haproxy.log"; }
haproxy_addr() {
  echo "$HOST:$CLUSTER_CH_PROXY_PORT (ClickHouse http), :$CLUSTER_GATEWAY_PROXY_PORT (gateways), :$CLUSTER_INGEST_PROXY_PORT (ingest)"
}

# Ready: a ClickHouse node answers through the frontend.
haproxy_ready() {
  [[ "$(curl -sf --max-time 3 "http://$HOST:$CLUSTER_CH_PROXY_PORT/ping" 2>/dev/null)" == "Ok." ]]
}

haproxy_launch() {
  local name="$1" home bin i
  home="$(haproxy_home)"
  bin="$(haproxy_bin)" || proc_fail "$name" "haproxy binary not found"
  for i in 1 2 3 4; do local "CH_HTTP_$i=$((CLUSTER_CH_HTTP_PORT + i - 1))"; done
  for i in 1 2; do
    local "GATEWAY_$i=$(service_port "gateway-$i")" "INGEST_$i=$(service_port "ingest-$i")"
  done
  render "$CLUSTER_DIR/haproxy/haproxy.cfg" "$home/haproxy.cfg" CLUSTER_CH_PROXY_PORT CH_HTTP_1 CH_HTTP_2 CH_HTTP_3 \
    CH_HTTP_4 CLUSTER_GATEWAY_PROXY_PORT GATEWAY_1 GATEWAY_2 CLUSTER_INGEST_PROXY_PORT INGEST_1 INGEST_2
  "$bin" -c -q -f "$home/haproxy.cfg" >>"$home/haproxy.log" 2>&1 || proc_fail "$name" "invalid $home/haproxy.cfg"
  # In the foreground (-db) under launch_detached rather than -D: its log lines go to stdout, into haproxy.log.
  launch_detached "$home/haproxy.pid" "$home/haproxy.log" "$bin" -f "$home/haproxy.cfg" -db ||
    proc_fail "$name" "haproxy did not start"
}
