# Kafka 3.9 as three KRaft brokers (each also a controller), from the local stack's Maven pom, run with plain java.
# shellcheck shell=bash

# The cluster keeps its own copy of the jars, in $DATA_DIR/cluster/kafka/lib: the local stack's pom, installed by
# its kafka_install_jars with the cluster's directory as DATA_DIR.
broker_queue_install() { kafka_queue_install; }
broker_install_jars() { (DATA_DIR="$CLUSTER_HOME" && kafka_install_jars); }

# A Kafka CLI class with the cluster's jars and quiet logging, e.g. org.apache.kafka.tools.TopicCommand.
# shellcheck disable=SC2034 # kafka_tool reads DATA_DIR.
cluster_kafka_tool() { (DATA_DIR="$CLUSTER_HOME" && kafka_tool "$@"); }

# shellcheck disable=SC2034 # the local stack's kafka_* functions read these.
# Points the local stack's kafka_* globals at broker NAME, so its kafka_pid and kafka_ready serve here too.
broker_paths() {
  local k
  k="$(node_index "$1")"
  kafka_paths "$CLUSTER_HOME/$1"
  # One copy of the jars for the three brokers.
  KAFKA_LIB="$CLUSTER_HOME/kafka/lib"
  KAFKA_PORT=$((CLUSTER_KAFKA_PORT + k - 1))
  KAFKA_CONTROLLER_PORT=$((CLUSTER_KAFKA_CONTROLLER_PORT + k - 1))
}

broker_ports() {
  local k
  k="$(node_index "$1")"
  echo "$((CLUSTER_KAFKA_PORT + k - 1)) $((CLUSTER_KAFKA_CONTROLLER_PORT + k - 1))"
}

broker_pid() { broker_paths "$1" && kafka_pid; }
broker_match() { echo "kafka.Kafka $CLUSTER_HOME/$1/server.properties"; }
broker_logs() { printf '%s\n' "$CLUSTER_HOME/$1/server.log" "$CLUSTER_HOME/$1/console.log"; }
broker_addr() {
  local k
  k="$(node_index "$1")"
  echo "$HOST:$((CLUSTER_KAFKA_PORT + k - 1)) (controller $HOST:$((CLUSTER_KAFKA_CONTROLLER_PORT + k - 1)))"
}

# Ready: "Kafka Server started" logged since the launch, which a KRaft broker logs once the controllers
# registered and unfenced it.
broker_ready() { broker_paths "$1" && kafka_ready; }

# Every broker's metadata log is formatted once, all with the one cluster id kept in $DATA_DIR/cluster/kafka.
broker_format() {
  [[ -f "$KAFKA_DATA/meta.properties" ]] && return 0
  local name="$1" id_file="$CLUSTER_HOME/kafka/cluster.id" log="$KAFKA_HOME/format.log"
  if [[ ! -s "$id_file" ]]; then
    cluster_kafka_tool kafka.tools.StorageTool random-uuid >"$id_file.tmp" 2>"$log" ||
      fail "$name" "StorageTool random-uuid failed" "$log"
    mv -f "$id_file.tmp" "$id_file"
  fi
  cluster_kafka_tool kafka.tools.StorageTool format -t "$(tr -d '[:space:]' <"$id_file")" -c "$KAFKA_CONFIG" \
    >>"$log" 2>&1 </dev/null || fail "$name" "StorageTool format failed" "$log"
}

broker_launch() {
  local name="$1" heap i
  broker_paths "$name"
  local KAFKA_NODE_ID
  # shellcheck disable=SC2034 # render reads it by name.
  KAFKA_NODE_ID="$(node_index "$name")"
  for i in 1 2 3; do local "KAFKA_CONTROLLER_$i=$((CLUSTER_KAFKA_CONTROLLER_PORT + i - 1))"; done
  [[ -f "$KAFKA_LIB/.installed" ]] || proc_fail "$name" "jars not installed in $KAFKA_LIB"
  mkdir -p "$KAFKA_DATA"
  render "$CLUSTER_DIR/kafka/server.properties" "$KAFKA_CONFIG" KAFKA_NODE_ID KAFKA_PORT KAFKA_CONTROLLER_PORT \
    KAFKA_CONTROLLER_1 KAFKA_CONTROLLER_2 KAFKA_CONTROLLER_3 KAFKA_DATA
  broker_format "$name"
  # kafka_ready trusts only log lines written after this offset.
  stat -c '%i %s' "$KAFKA_LOG" >"$KAFKA_OFFSET_FILE" 2>/dev/null || echo '0 0' >"$KAFKA_OFFSET_FILE"
  rm -f "$KAFKA_STARTED_FILE"
  # Word-split on purpose: the variable holds several JVM flags.
  read -r -a heap <<<"${CLUSTER_KAFKA_HEAP_OPTS:--Xmx256m}"
  (cd "$KAFKA_HOME" && launch_detached "$KAFKA_PIDFILE" "$KAFKA_CONSOLE_LOG" java "${heap[@]}" \
    -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
    -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true \
    -Xlog:gc:file="$KAFKA_HOME/gc.log":time:filecount=2,filesize=5m \
    -Dkafka.logs.dir="$KAFKA_HOME" -Dlog4j.configuration="file:$STACK_DIR/kafka/log4j.properties" \
    -cp "$KAFKA_LIB/*" kafka.Kafka "$KAFKA_CONFIG") ||
    proc_fail "$name" "the broker process did not start"
}

# brokers_registered: waits until the cluster's metadata lists all three brokers, as a client sees it.
brokers_registered() {
  local i n=0 servers
  servers="$(kafka_brokers_csv)"
  for ((i = 0; i < START_TIMEOUT; i += 2)); do
    n="$(cluster_kafka_tool kafka.admin.BrokerApiVersionsCommand --bootstrap-server "$servers" 2>/dev/null |
      grep -c ' (id: ')" || true
    ((n == ${#BROKERS[@]})) && return 0
    sleep 2
  done
  proc_fail kafka-1 "the cluster's metadata lists $n of ${#BROKERS[@]} brokers after ${START_TIMEOUT}s"
}

kafka_brokers_csv() {
  local k out=()
  for k in 1 2 3; do out+=("$HOST:$((CLUSTER_KAFKA_PORT + k - 1))"); done
  (IFS=,; echo "${out[*]}")
}
