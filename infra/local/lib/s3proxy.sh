# S3Proxy (S3-compatible object storage on the filesystem) from its Maven Central jar, started with plain java.
# shellcheck shell=bash

S3PROXY_POM="$STACK_DIR/s3proxy/pom.xml"
# Fixed and local only, like Postgres' audit:audit; `stack.sh env` hands them to the services.
# shellcheck disable=SC2034 # read by stack.sh and, through render, by the config template
S3_IDENTITY=audit S3_CREDENTIAL=audit-local-secret-0123456789 S3_BUCKET=audit-exports

s3proxy_paths() {
  S3_HOME="$DATA_DIR/s3proxy"
  S3_LIB="$S3_HOME/lib"
  S3_JAR="$S3_LIB/s3proxy.jar"
  S3_DATA="$S3_HOME/data"
  S3_CONFIG="$S3_HOME/s3proxy.conf"
  S3_PIDFILE="$S3_HOME/s3proxy.pid"
  S3_LOG="$S3_HOME/s3proxy.log"
}

s3proxy_version() {
  sed -n 's:.*<s3proxy.version>\(.*\)</s3proxy.version>.*:\1:p' "$S3PROXY_POM" | head -n1
}

s3proxy_queue_install() {
  need_pkg s3proxy openjdk-17-jre-headless command -v java
  need_pkg s3proxy maven command -v mvn
  need_pkg s3proxy curl command -v curl
}

# Maven part of the install; the marker ties the jar to the pom that produced it.
s3proxy_install_jar() {
  s3proxy_paths
  local ver want marker="$S3_LIB/.installed"
  ver="$(s3proxy_version)"
  want="s3proxy $ver pom-sha256 $(sha256sum "$S3PROXY_POM" | cut -c1-64)"
  [[ -f "$marker" && "$(<"$marker")" == "$want" ]] && return 0

  local log="$LOG_DIR/maven-s3proxy.log" tmp="$S3_HOME/lib.tmp"
  mkdir -p "$S3_HOME"
  rm -rf "$tmp"
  note "s3proxy: fetching the S3Proxy $ver jar from Maven Central (log: $log)"
  if ! mvn -q -B -f "$S3PROXY_POM" dependency:copy -DoutputDirectory="$tmp" >"$log" 2>&1 </dev/null; then
    fail s3proxy "maven could not fetch the S3Proxy jar" "$log"
  fi
  [[ -s "$tmp/s3proxy.jar" ]] || fail s3proxy "s3proxy.jar missing after maven run" "$log"
  echo "$want" >"$tmp/.installed"
  rm -rf "$S3_LIB"
  mv "$tmp" "$S3_LIB"
}

s3proxy_pid() { read_pid "$S3_PIDFILE"; }

# Matching on our config path tells our server apart from another stack's.
s3proxy_running() {
  local pid
  pid="$(s3proxy_pid)"
  [[ -n "$pid" ]] && pid_matches "$pid" "--properties $S3_CONFIG"
}

# /healthz answers 200 without authentication once the server serves requests.
s3proxy_ready() {
  [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://$HOST:$S3_PORT/healthz" 2>/dev/null)" == 200 ]]
}

s3proxy_up() { s3proxy_running && ! s3proxy_port_mismatch >/dev/null && s3proxy_ready; }

# Prints the port of the running server's config when it differs from S3_PORT.
s3proxy_port_mismatch() {
  local p
  p="$(sed -n 's|^s3proxy.endpoint=http://[^:]*:\([0-9]*\).*|\1|p' "$S3_CONFIG" 2>/dev/null | head -n1)"
  [[ -n "$p" && "$p" != "$S3_PORT" ]] && echo "$p"
}

s3proxy_start() {
  s3proxy_paths
  local launcher="" heap other
  if s3proxy_running && other="$(s3proxy_port_mismatch)"; then
    fail s3proxy "already running from $DATA_DIR on port $other, not S3_PORT=$S3_PORT; stop it first to change ports"
  fi
  # Word-split on purpose: S3PROXY_HEAP_OPTS holds JVM flags. Below 128 MB of heap S3Proxy runs out of memory
  # on uploads and answers 500.
  read -r -a heap <<<"${S3PROXY_HEAP_OPTS:--Xmx128m}"
  if ! s3proxy_running; then
    [[ -f "$S3_LIB/.installed" ]] || fail s3proxy "jar not installed in $S3_LIB (run: stack.sh install)"
    ensure_ports_free s3proxy "$S3_PORT"
    mkdir -p "$S3_DATA"
    render "$STACK_DIR/s3proxy/s3proxy.conf" "$S3_CONFIG" S3_PORT S3_IDENTITY S3_CREDENTIAL S3_DATA
    # A small heap, the serial collector and the C1 compiler only: a local server with little traffic starts in
    # about a second and keeps its memory low. The status listener would print logback's set-up on every start.
    (cd "$S3_HOME" && launch_detached "$S3_PIDFILE" "$S3_LOG" java "${heap[@]}" \
      -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
      -DLOG_LEVEL=warn -Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener \
      -jar "$S3_JAR" --properties "$S3_CONFIG") ||
      fail s3proxy "the server process did not start" "$S3_LOG"
    launcher="$(s3proxy_pid)"
  fi
  local i
  for ((i = 0; i < START_TIMEOUT * 2; i++)); do
    s3proxy_ready && break
    # Right after launch the cmdline may not show java yet, so test the pid itself.
    pid_alive "${launcher:-$(s3proxy_pid)}" || fail s3proxy "server exited during startup" "$S3_LOG"
    sleep 0.5
  done
  s3proxy_ready || fail s3proxy "no 200 from http://$HOST:$S3_PORT/healthz after ${START_TIMEOUT}s" "$S3_LOG"
  s3proxy_running || fail s3proxy "answers on $HOST:$S3_PORT but $S3_PIDFILE does not point at our server" "$S3_LOG"
}

s3proxy_stop() {
  s3proxy_paths
  if s3proxy_running; then
    stop_pid s3proxy "$(s3proxy_pid)"
  fi
  rm -f "$S3_PIDFILE"
}

s3proxy_status() {
  s3proxy_paths
  local addr="$HOST:$S3_PORT (S3, path-style)"
  local other
  if s3proxy_up; then
    status_line s3proxy up "$addr"
  elif s3proxy_running && other="$(s3proxy_port_mismatch)"; then
    status_line s3proxy down "$addr (this DATA_DIR's server runs on port $other)"
    return 1
  elif s3proxy_running; then
    status_line s3proxy down "$addr (pid $(s3proxy_pid) alive but not answering)"
    return 1
  else
    status_line s3proxy down "$addr"
    return 1
  fi
}
