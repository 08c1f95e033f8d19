# ClickHouse 18.16 from Debian, run with our own config (not the system service).
# shellcheck shell=bash

ch_paths() {
  CH_HOME="$DATA_DIR/clickhouse"
  CH_ETC="$CH_HOME/etc"
  CH_CONFIG="$CH_ETC/config.xml"
  CH_PIDFILE="$CH_HOME/clickhouse-server.pid"
  CH_CONSOLE_LOG="$CH_HOME/log/console.log"
  CH_LOGS=("$CH_HOME/log/clickhouse-server.err.log" "$CH_CONSOLE_LOG")
}

ch_server_bin() {
  local b
  for b in "$(command -v clickhouse-server 2>/dev/null)" /usr/sbin/clickhouse-server /usr/bin/clickhouse-server; do
    [[ -n "$b" && -x "$b" ]] && { echo "$b"; return 0; }
  done
  return 1
}

ch_queue_install() {
  need_pkg clickhouse clickhouse-server ch_server_bin
  need_pkg clickhouse clickhouse-client command -v clickhouse-client
  need_pkg clickhouse curl command -v curl
}

ch_pid() { read_pid "$CH_PIDFILE"; }

# Matching on our config path tells our server apart from another stack's.
ch_running() {
  local pid
  pid="$(ch_pid)"
  [[ -n "$pid" ]] && pid_matches "$pid" "$CH_CONFIG"
}

ch_query() {
  curl -sf --max-time 5 --data-binary "$1" "http://$HOST:$CH_HTTP_PORT/"
}

ch_ready() {
  [[ "$(curl -sf --max-time 2 "http://$HOST:$CH_HTTP_PORT/ping" 2>/dev/null)" == "Ok." ]] &&
    [[ -n "$(ch_query 'SELECT version()' 2>/dev/null)" ]]
}

# The gateway's read-only user answers (users.xml; docs/operations.md "ClickHouse users").
ch_reader_ready() {
  [[ "$(curl -sf --max-time 2 "http://$HOST:$CH_HTTP_PORT/?user=audit_reader" --data-binary 'SELECT 1' 2>/dev/null)" == "1" ]]
}

ch_up() { ch_running && ! ch_port_mismatch >/dev/null && ch_ready; }

# Prints the HTTP port of the running server's config when it differs from CH_HTTP_PORT.
ch_port_mismatch() {
  local p
  p="$(sed -n 's:.*<http_port>\([0-9]*\)</http_port>.*:\1:p' "$CH_CONFIG" 2>/dev/null | head -n1)"
  [[ -n "$p" && "$p" != "$CH_HTTP_PORT" ]] && echo "$p"
}

ch_render_config() {
  mkdir -p "$CH_ETC" "$CH_HOME/log" "$CH_HOME/data" "$CH_HOME/tmp" "$CH_HOME/user_files" "$CH_HOME/format_schemas"
  render "$STACK_DIR/clickhouse/config.xml" "$CH_CONFIG" CH_HOME CH_HTTP_PORT CH_TCP_PORT CH_INTERSERVER_PORT
  render "$STACK_DIR/clickhouse/users.xml" "$CH_ETC/users.xml"
}

ch_start() {
  ch_paths
  local other
  if ch_running && other="$(ch_port_mismatch)"; then
    fail clickhouse "already running from $DATA_DIR on http port $other, not CH_HTTP_PORT=$CH_HTTP_PORT; stop it first to change ports"
  fi
  if ! ch_running; then
    local bin
    bin="$(ch_server_bin)" || fail clickhouse "clickhouse-server binary not found (run: stack.sh install)"
    ensure_ports_free clickhouse "$CH_HTTP_PORT" "$CH_TCP_PORT" "$CH_INTERSERVER_PORT"
    ch_render_config
    # A pid file left by a crash would make the server refuse to start.
    rm -f "$CH_PIDFILE"
    # 18.16 writes the <pid> file only in --daemon mode; the daemon forks, calls
    # setsid and detaches from our stdio by itself.
    if ! (cd "$CH_HOME" && "$bin" --config-file="$CH_CONFIG" --daemon \
      >>"$CH_CONSOLE_LOG" 2>&1 </dev/null 9>&-); then
      fail clickhouse "clickhouse-server --daemon failed" "${CH_LOGS[@]}"
    fi
  fi
  local i
  for ((i = 0; i < START_TIMEOUT * 2; i++)); do
    ch_ready && break
    # The daemon writes its pid file within a second or so; no live pid after
    # 10 s means it died during startup (bad config, port race, ...).
    if ((i >= 20)) && ! ch_running; then
      fail clickhouse "server exited during startup" "${CH_LOGS[@]}"
    fi
    sleep 0.5
  done
  ch_ready || fail clickhouse "no 'Ok.' from http://$HOST:$CH_HTTP_PORT/ping (or SELECT version() failed) after ${START_TIMEOUT}s" "${CH_LOGS[@]}"
  ch_running || fail clickhouse "answers on $HOST:$CH_HTTP_PORT but $CH_PIDFILE does not point at our server" "${CH_LOGS[@]}"
  # A server started by an older checkout learns new users without a restart: it reloads users.xml on change.
  render "$STACK_DIR/clickhouse/users.xml" "$CH_ETC/users.xml"
  for ((i = 0; i < START_TIMEOUT * 2; i++)); do
    ch_reader_ready && return 0
    sleep 0.5
  done
  fail clickhouse "the read-only user audit_reader does not answer after ${START_TIMEOUT}s" "${CH_LOGS[@]}"
}

ch_stop() {
  ch_paths
  ch_running || { rm -f "$CH_PIDFILE"; return 0; }
  stop_pid clickhouse "$(ch_pid)"
  rm -f "$CH_PIDFILE"
}

ch_status() {
  ch_paths
  local addr="$HOST:$CH_HTTP_PORT (http) $HOST:$CH_TCP_PORT (native)"
  local other
  if ch_up; then
    status_line clickhouse up "$addr"
  elif ch_running && other="$(ch_port_mismatch)"; then
    status_line clickhouse down "$addr (this DATA_DIR's server runs on http port $other)"
    return 1
  elif ch_running; then
    status_line clickhouse down "$addr (pid $(ch_pid) alive but not answering)"
    return 1
  else
    status_line clickhouse down "$addr"
    return 1
  fi
}
