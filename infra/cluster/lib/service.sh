# The services, two of each, on the cluster's engines: gateway-1..2 and ingest-1..2 behind HAProxy, projector,
# dispatcher, exporter, notary and custodian each twice in their consumer groups or side by side. Each is a Node process
# from the checkout (as `npm start` runs them), told its own port; the rest of its environment is the cluster's.
# shellcheck shell=bash

SERVICE_NAMES=(gateway ingest projector dispatcher exporter notary custodian)
# shellcheck disable=SC2034 # used by common.sh and cluster.sh
SERVICES=()
for _s in "${SERVICE_NAMES[@]}"; do SERVICES+=("$_s-1" "$_s-2"); done
unset _s

service_of() { echo "${1%-*}"; }

# Instance k of a service listens on its base + k; the gateway's metrics have a listener of their own.
service_base() {
  case "$(service_of "$1")" in
    gateway) echo "$CLUSTER_SERVICE_PORT" ;;
    ingest) echo $((CLUSTER_SERVICE_PORT + 10)) ;;
    projector) echo $((CLUSTER_SERVICE_PORT + 20)) ;;
    dispatcher) echo $((CLUSTER_SERVICE_PORT + 30)) ;;
    exporter) echo $((CLUSTER_SERVICE_PORT + 40)) ;;
    notary) echo $((CLUSTER_SERVICE_PORT + 50)) ;;
    custodian) echo $((CLUSTER_SERVICE_PORT + 70)) ;;
  esac
}
service_port() { echo $(($(service_base "$1") + $(node_index "$1"))); }

service_ports() {
  local port
  port="$(service_port "$1")"
  if [[ "$(service_of "$1")" == gateway ]]; then echo "$port $((port + 60))"; else echo "$port"; fi
}

service_home() { echo "$CLUSTER_HOME/$1"; }
service_queue_install() { :; }
service_pid() { read_pid "$(service_home "$1")/service.pid"; }
# The instance's name stands last on its command line: both instances run the same script.
service_match() { echo "main.ts cluster:$1"; }
service_logs() { echo "$(service_home "$1")/service.log"; }
service_addr() { echo "$HOST:$(service_port "$1")"; }
service_ready() { curl -sf --max-time 2 "http://$HOST:$(service_port "$1")/readyz" >/dev/null 2>&1; }

# The environment every service and the operator CLI share: the cluster's engines, the checkout's development
# secrets (.data/secrets.env, as `npm start` makes them), export files and signing keys in the cluster's folder.
service_env() {
  print_env
  (cd "$REPO_ROOT" && source scripts/local-secrets.sh && ensure_dev_secrets && load_dev_secrets &&
    env | grep -E '^(INGEST_TOKEN|API_KEY_PEPPER|CURSOR_SECRET|WEBHOOK_SECRET_KEY|[A-Z]+_DATABASE_PASSWORD)=' |
    sed 's/^/export /')
  echo "export EXPORT_DIR=$CLUSTER_HOME/exports"
  echo "export INTEGRITY_KEY_DIR=$CLUSTER_HOME/integrity-keys"
}

# The migrations and the checkpoints' first signing key, before any service starts (as `npm start` does).
services_prepare() {
  local log="$LOG_DIR/services-prepare.log"
  # Node 24 and the npm packages, as `npm start` has them (scripts/prepare.sh).
  (cd "$REPO_ROOT" && source scripts/ensure-node.sh && bash scripts/ensure-deps.sh) >>"$log" 2>&1 </dev/null ||
    fail services "Node 24 or the npm packages could not be installed" "$log"
  (
    cd "$REPO_ROOT"
    source scripts/ensure-node.sh
    eval "$(service_env)"
    export CLICKHOUSE_URL CLICKHOUSE_CLUSTER KAFKA_BROKERS KAFKA_REPLICATION_FACTOR DATABASE_URL EXPORT_DIR \
      INTEGRITY_KEY_DIR LOG_LEVEL=warn GATEWAY_DATABASE_PASSWORD PROJECTOR_DATABASE_PASSWORD \
      DISPATCHER_DATABASE_PASSWORD EXPORTER_DATABASE_PASSWORD NOTARY_DATABASE_PASSWORD CUSTODIAN_DATABASE_PASSWORD
    # The migrations make the services' roles; their passwords give them logins (docs/operations.md "Database roles").
    node --import tsx services/ops/src/main.ts migrate &&
      node --import tsx services/ops/src/main.ts integrity keys create --if-none &&
      node --import tsx scripts/build-viewer.ts
  ) >>"$log" 2>&1 </dev/null || fail services "the migrations, the first signing key or the viewer's build failed" "$log"
}

service_launch() {
  local name="$1" service home port
  service="$(service_of "$name")"
  home="$(service_home "$name")"
  port="$(service_port "$name")"
  local upper="${service^^}"
  (
    cd "$REPO_ROOT"
    source scripts/ensure-node.sh
    eval "$(service_env)"
    export CLICKHOUSE_URL CLICKHOUSE_CLUSTER KAFKA_BROKERS KAFKA_REPLICATION_FACTOR DATABASE_URL EXPORT_DIR \
      INTEGRITY_KEY_DIR INGEST_TOKEN API_KEY_PEPPER CURSOR_SECRET WEBHOOK_SECRET_KEY
    export "${upper}_HOST=$HOST" "${upper}_PORT=$port" KAFKA_CLIENT_ID="audit-trail-$name"
    # Each service but ingest logs in to Postgres as its own role, with the password `ops migrate` gave it.
    if [[ "$service" != ingest ]]; then
      local password_var="${upper}_DATABASE_PASSWORD"
      DATABASE_URL="${DATABASE_URL/audit:audit@/audit_$service:${!password_var}@}"
    fi
    case "$service" in
      gateway)
        # Behind HAProxy on this host: the client's address is the one the balancer forwards.
        export GATEWAY_METRICS_PORT=$((port + 60)) TRUSTED_PROXIES=127.0.0.1/32
        export CLICKHOUSE_USER="$GATEWAY_CLICKHOUSE_USER"
        ;;
      exporter) export CLICKHOUSE_USER="$GATEWAY_CLICKHOUSE_USER" ;;
      # A purge deletes on one replica of each shard and waits for every replica (docs/retention.md "On a cluster").
      custodian) export CLICKHOUSE_NODE_URLS ;;
    esac
    launch_detached "$home/service.pid" "$home/service.log" node --max-semi-space-size=32 \
      --disable-warning=TimeoutNegativeWarning --import tsx "services/$service/src/main.ts" "cluster:$name"
  ) || proc_fail "$name" "the process did not start"
}
