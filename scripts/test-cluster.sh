#!/usr/bin/env bash
# The cluster tier of `npm test` (docs/testing.md "Cluster"): the cluster shape of infra/cluster (three Kafka brokers,
# a ZooKeeper ensemble, ClickHouse as 2 shards x 2 replicas behind HAProxy, Postgres with a hot standby), then the
# tests of what only a cluster has (the `cluster` project, test/cluster/) and the tests of the read and write path's
# guarantees again, with every table sharded and replicated. S3Proxy stays the local stack's.
# Usage: test-cluster.sh [RESULTS_DIR] (vitest JSON reports go there).
set -euo pipefail
cd "$(dirname "$0")/.."
results="${1:-.data/test-results}"
mkdir -p "$results"
source scripts/prepare.sh
started=$SECONDS
# A cluster this tier started is stopped when it ends (its seven servers would take the cores from the tiers
# still running); one that was up already, a developer's, is left up.
ours=false
bash infra/cluster/cluster.sh status engines >/dev/null 2>&1 || ours=true
mender=
ended() {
  [ -z "$mender" ] || kill "$mender" 2>/dev/null || true
  if $ours; then bash infra/cluster/cluster.sh down >/dev/null 2>&1 || true; fi
}
trap ended EXIT
# The engines only: the tests start the services they need, each on names of its own.
bash infra/cluster/cluster.sh up engines
echo "cluster: up in $((SECONDS - started)) s"
# Assigned first, alone: `eval "$(…)"` would go on without the variables when the script fails.
cluster_env="$(bash infra/cluster/cluster.sh env)"
eval "$cluster_env"
export CLICKHOUSE_URL CLICKHOUSE_CLUSTER CLICKHOUSE_NODE_URLS KAFKA_BROKERS KAFKA_REPLICATION_FACTOR DATABASE_URL \
  DATABASE_STANDBY_URL GATEWAY_CLICKHOUSE_USER GATEWAY_URL INGEST_URL
# The services `cluster.sh up` starts take the checkout's development secrets; the tests of the whole shape send
# with its ingest token and mint keys with its pepper. (The other tests' services have secrets of their own.)
source scripts/local-secrets.sh
ensure_dev_secrets
load_dev_secrets
reporters=(--reporter=default --reporter=json)
failed=0
# 18.16's DDL worker can end for good while the tests run (infra/cluster/README.md "Faults of 18.16"), and every ON
# CLUSTER statement then waits for that node until distributed_ddl_task_timeout (180 s) and fails: a node whose
# worker ended is restarted within seconds instead, and the statement waiting for it goes on.
(while sleep 5; do bash infra/cluster/cluster.sh mend || true; done) &
mender=$!
# The guarantees of the read and write path, each already tested on one server: exactly-once projection, list
# order, exact has_more, cursors, lookups, tenant isolation, export cuts, export jobs, the rebuilt projection. The
# heaviest files make a fifth of their data here: the shape's guarantees, not its load (docs/testing.md "Volume").
AUDIT_TEST_VOLUME=${AUDIT_TEST_VOLUME:-reduced} npx vitest run --project int "${reporters[@]}" \
  --outputFile.json="$results/cluster-int.json" \
  test/int/migrations.int.test.ts \
  test/int/pipeline.int.test.ts \
  services/projector/src/adapters/clickhouse.sink.int.test.ts \
  test/int/projection-tables-admin.int.test.ts \
  test/int/indexed-page.int.test.ts \
  test/e2e/gateway-list.e2e.test.ts \
  test/e2e/gateway-lookup.e2e.test.ts \
  test/e2e/gateway-export.e2e.test.ts \
  test/e2e/pagination.e2e.test.ts \
  test/e2e/tenant-isolation.e2e.test.ts \
  test/e2e/export-jobs.e2e.test.ts \
  test/e2e/replay-projection.e2e.test.ts || failed=1
# What only a cluster has, last: its tests of the whole shape start two of each service (`cluster.sh up`), which
# would take the cores from the tests above while they idle. Their dispatchers may deliver to the tests' receivers
# on 127.0.0.1 (development only: docs/contract.md "Webhooks"), and their notaries sign every 2 s, so that a test
# sees checkpoints without waiting a minute.
WEBHOOK_ALLOW_TARGET_CIDRS=127.0.0.0/8 WEBHOOK_ALLOW_HTTP=true INTEGRITY_CHECKPOINT_INTERVAL_MS=2000 \
  npx vitest run --project cluster "${reporters[@]}" --outputFile.json="$results/cluster.json" || failed=1
exit "$failed"
