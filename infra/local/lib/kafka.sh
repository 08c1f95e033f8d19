# Apache Kafka (KRaft, single node) from Maven Central jars, started with plain java.
# shellcheck shell=bash

KAFKA_POM="$STACK_DIR/kafka/pom.xml"

# kafka_paths [HOME]: the broker's files, under HOME (default $DATA_DIR/kafka; infra/cluster gives each broker its own).
kafka_paths() {
  KAFKA_HOME="${1:-$DATA_DIR/kafka}"
  KAFKA_LIB="$KAFKA_HOME/lib"
  KAFKA_DATA="$KAFKA_HOME/data"
  KAFKA_CONFIG="$KAFKA_HOME/server.properties"
  KAFKA_PIDFILE="$KAFKA_HOME/kafka.pid"
  KAFKA_LOG="$KAFKA_HOME/server.log"
  KAFKA_CONSOLE_LOG="$KAFKA_HOME/console.log"
  # Inode and byte offset of server.log at the last launch: readiness only trusts newer lines.
  KAFKA_OFFSET_FILE="$KAFKA_HOME/.log-offset"
  # Holds the pid once its "Kafka Server started" line was seen (survives log rotation).
  KAFKA_STARTED_FILE="$KAFKA_HOME/.started"
}

kafka_version() {
  sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$KAFKA_POM" | head -n1
}

kafka_queue_install() {
  need_pkg kafka openjdk-17-jre-headless command -v java
  need_pkg kafka maven command -v mvn
}

# Maven part of the install; the marker ties the jars to the pom that produced them.
kafka_install_jars() {
  kafka_paths
  local ver want marker="$KAFKA_LIB/.installed"
  ver="$(kafka_version)"
  want="kafka $ver pom-sha256 $(sha256sum "$KAFKA_POM" | cut -c1-64)"
  [[ -f "$marker" && "$(<"$marker")" == "$want" ]] && return 0

  local log="$LOG_DIR/maven.log" tmp="$KAFKA_HOME/lib.tmp"
  mkdir -p "$KAFKA_HOME"
  rm -rf "$tmp"
  note "kafka: fetching Kafka $ver jars from Maven Central (log: $log)"
  if ! mvn -q -B -f "$KAFKA_POM" dependency:copy-dependencies \
    -DoutputDirectory="$tmp" -DincludeScope=runtime >"$log" 2>&1 </dev/null; then
    fail kafka "maven could not fetch the Kafka jars" "$log"
  fi
  [[ -f "$tmp/kafka_2.13-$ver.jar" ]] || fail kafka "kafka_2.13-$ver.jar missing after maven run" "$log"
  echo "$want" >"$tmp/.installed"
  rm -rf "$KAFKA_LIB"
  mv "$tmp" "$KAFKA_LIB"
}

kafka_java() {
  java -cp "$KAFKA_LIB/*" "$@"
}

# Run a Kafka CLI class with quiet logging, e.g. org.apache.kafka.tools.TopicCommand.
kafka_tool() {
  kafka_paths
  [[ -f "$KAFKA_LIB/.installed" ]] || die "kafka: jars not installed (run: stack.sh install)"
  kafka_java -Dlog4j.configuration="file:$STACK_DIR/kafka/tools-log4j.properties" "$@"
}

kafka_pid() { read_pid "$KAFKA_PIDFILE"; }

kafka_running() {
  local pid
  pid="$(kafka_pid)"
  [[ -n "$pid" ]] && pid_matches "$pid" "kafka.Kafka $KAFKA_CONFIG"
}

kafka_ready() {
  local pid inode offset size
  pid="$(kafka_pid)"
  port_open "$KAFKA_PORT" || return 1
  [[ -n "$pid" && "$(read_pid "$KAFKA_STARTED_FILE")" == "$pid" ]] && return 0
  read -r inode offset <"$KAFKA_OFFSET_FILE" 2>/dev/null || true
  size="$(stat -c %s "$KAFKA_LOG" 2>/dev/null || echo 0)"
  # Another file, or a shorter one: it was rotated since the launch, so read it whole. A broker cleaning up many
  # deleted topics at startup writes more than the old file held within seconds, so the size alone cannot tell.
  [[ "$(stat -c %i "$KAFKA_LOG" 2>/dev/null)" == "$inode" ]] && ((size >= ${offset:-0})) || offset=0
  # Not a pipe: grep stops at the first match and tail dies of SIGPIPE, which pipefail would count as a failure.
  if grep -q 'Kafka Server started' < <(tail -c +"$((${offset:-0} + 1))" "$KAFKA_LOG" 2>/dev/null); then
    echo "$pid" >"$KAFKA_STARTED_FILE" 2>/dev/null || true
    return 0
  fi
  return 1
}

kafka_up() { kafka_running && ! kafka_port_mismatch >/dev/null && kafka_ready; }

# Prints the client port of the running broker's config when it differs from KAFKA_PORT.
kafka_port_mismatch() {
  local p
  p="$(sed -n 's|^listeners=PLAINTEXT://[^:]*:\([0-9]*\).*|\1|p' "$KAFKA_CONFIG" 2>/dev/null | head -n1)"
  [[ -n "$p" && "$p" != "$KAFKA_PORT" ]] && echo "$p"
}

# Format the KRaft metadata log once; meta.properties marks a formatted dir.
kafka_format() {
  [[ -f "$KAFKA_DATA/meta.properties" ]] && return 0
  local log="$LOG_DIR/kafka-format.log" cid_file="$KAFKA_HOME/cluster.id" cid
  if [[ ! -s "$cid_file" ]]; then
    kafka_tool kafka.tools.StorageTool random-uuid >"$cid_file.tmp" 2>"$log" ||
      fail kafka "StorageTool random-uuid failed" "$log"
    mv -f "$cid_file.tmp" "$cid_file"
  fi
  cid="$(tr -d '[:space:]' <"$cid_file")"
  kafka_tool kafka.tools.StorageTool format -t "$cid" -c "$KAFKA_CONFIG" >>"$log" 2>&1 </dev/null ||
    fail kafka "StorageTool format failed" "$log"
}

kafka_start() {
  kafka_paths
  local launcher="" heap other
  if kafka_running && other="$(kafka_port_mismatch)"; then
    fail kafka "already running from $DATA_DIR on port $other, not KAFKA_PORT=$KAFKA_PORT; stop it first to change ports"
  fi
  # Word-split on purpose: KAFKA_HEAP_OPTS holds several JVM flags.
  read -r -a heap <<<"${KAFKA_HEAP_OPTS:--Xms512m -Xmx512m}"
  if ! kafka_running; then
    [[ -f "$KAFKA_LIB/.installed" ]] || fail kafka "jars not installed in $KAFKA_LIB (run: stack.sh install)"
    ensure_ports_free kafka "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"
    mkdir -p "$KAFKA_DATA"
    render "$STACK_DIR/kafka/server.properties" "$KAFKA_CONFIG" KAFKA_PORT KAFKA_CONTROLLER_PORT KAFKA_DATA
    kafka_format
    stat -c '%i %s' "$KAFKA_LOG" >"$KAFKA_OFFSET_FILE" 2>/dev/null || echo '0 0' >"$KAFKA_OFFSET_FILE"
    rm -f "$KAFKA_STARTED_FILE"
    (cd "$KAFKA_HOME" && launch_detached "$KAFKA_PIDFILE" "$KAFKA_CONSOLE_LOG" java "${heap[@]}" \
      -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
      -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true \
      -Dkafka.logs.dir="$KAFKA_HOME" \
      -Dlog4j.configuration="file:$STACK_DIR/kafka/log4j.properties" \
      -cp "$KAFKA_LIB/*" kafka.Kafka "$KAFKA_CONFIG") ||
      fail kafka "the broker process did not start" "$KAFKA_CONSOLE_LOG"
    launcher="$(kafka_pid)"
  fi
  local i
  for ((i = 0; i < START_TIMEOUT * 2; i++)); do
    kafka_ready && break
    # Right after launch the cmdline may not show java yet, so test the pid itself.
    pid_alive "${launcher:-$(kafka_pid)}" || fail kafka "broker exited during startup" "$KAFKA_LOG" "$KAFKA_CONSOLE_LOG"
    sleep 0.5
  done
  kafka_ready || fail kafka "no 'Kafka Server started' / port $HOST:$KAFKA_PORT closed after ${START_TIMEOUT}s" \
    "$KAFKA_LOG" "$KAFKA_CONSOLE_LOG"
}

kafka_stop() {
  kafka_paths
  if kafka_running; then
    stop_pid kafka "$(kafka_pid)"
  fi
  rm -f "$KAFKA_PIDFILE" "$KAFKA_STARTED_FILE"
}

kafka_status() {
  kafka_paths
  local addr="$HOST:$KAFKA_PORT (controller $HOST:$KAFKA_CONTROLLER_PORT)"
  local other
  if kafka_up; then
    status_line kafka up "$addr"
  elif kafka_running && other="$(kafka_port_mismatch)"; then
    status_line kafka down "$addr (this DATA_DIR's broker runs on port $other)"
    return 1
  elif kafka_running; then
    status_line kafka down "$addr (pid $(kafka_pid) alive but not ready)"
    return 1
  else
    status_line kafka down "$addr"
    return 1
  fi
}
