#!/bin/bash
# Renders infra/local's server.properties for the container (all interfaces, the image's ports and data directory),
# then applies every KAFKA_* variable as a broker setting the way the upstream apache/kafka image does
# (KAFKA_LOG_DIRS -> log.dirs; ___ -> '-', __ -> '_', _ -> '.'), formats the KRaft log once, and runs the broker.
set -euo pipefail
config=/opt/kafka/config/server.properties.rendered
sed -e 's|@KAFKA_PORT@|9092|g' -e 's|@KAFKA_CONTROLLER_PORT@|9093|g' -e 's|@KAFKA_DATA@|/var/lib/kafka/data|g' \
  -e 's|PLAINTEXT://127.0.0.1:|PLAINTEXT://:|' -e 's|CONTROLLER://127.0.0.1:|CONTROLLER://:|' \
  -e 's|^controller.quorum.voters=1@127.0.0.1:|controller.quorum.voters=1@localhost:|' \
  -e 's|^advertised.listeners=PLAINTEXT://127.0.0.1:|advertised.listeners=PLAINTEXT://localhost:|' \
  /opt/kafka/config/server.properties >"$config"

# Launcher variables, not broker settings.
skip='^KAFKA_(HEAP_OPTS|JVM_PERFORMANCE_OPTS|OPTS|LOG4J_OPTS|VERSION|HOME)='
while IFS='=' read -r name value; do
  key="$(printf '%s' "${name#KAFKA_}" | sed -e 's/___/-/g' -e 's/__/@/g' -e 's/_/./g' -e 's/@/_/g' | tr '[:upper:]' '[:lower:]')"
  grep -v "^${key//./\\.}=" "$config" >"$config.tmp" || true
  printf '%s=%s\n' "$key" "$value" >>"$config.tmp"
  mv "$config.tmp" "$config"
done < <(env | grep -E '^KAFKA_[A-Z0-9_]+=' | grep -Ev "$skip" || true)

log_dirs="$(sed -n 's/^log.dirs=//p' "$config" | tail -n1)"
classpath='/opt/kafka/libs/*'
tools_log4j=-Dlog4j.configuration=file:/opt/kafka/config/tools-log4j.properties
if [[ ! -f "${log_dirs%%,*}/meta.properties" ]]; then
  cluster_id="${CLUSTER_ID:-$(java -cp "$classpath" "$tools_log4j" kafka.tools.StorageTool random-uuid)}"
  java -cp "$classpath" "$tools_log4j" kafka.tools.StorageTool format -t "$cluster_id" -c "$config" --ignore-formatted
fi

read -r -a heap <<<"${KAFKA_HEAP_OPTS:--Xms512m -Xmx512m}"
exec java "${heap[@]}" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
  -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true \
  -Dlog4j.configuration=file:/opt/kafka/config/log4j-console.properties \
  -cp "$classpath" kafka.Kafka "$config"
