#!/usr/bin/env bash
# The container engine on machines without Docker (docs/operations.md "Containers on our machines"): Debian's
# Podman with the runc runtime, ulimits within the machine's hard limits, and its Docker-compatible API socket,
# which docker-compose and testcontainers drive.
#   podman.sh install   apt packages and /etc/containers/containers.conf (root)
#   podman.sh socket    install if needed, start the API socket if it does not answer, print `export DOCKER_HOST=…`
#   podman.sh stop      stop the API socket this script started
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${DATA_DIR:-$ROOT/.data}/podman"
SOCKET="${PODMAN_SOCKET:-/run/podman/podman.sock}"
log() { echo "podman: $*" >&2; }
# shellcheck source=../local/lib/common.sh
source "$ROOT/infra/local/lib/common.sh"

install() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman)
  command -v runc >/dev/null || missing+=(runc)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  # `--init` (the Python tools' containers) runs Podman's init binary, which Debian ships apart, as a Recommends.
  [ -x /usr/libexec/podman/catatonit ] || missing+=(catatonit)
  # Compose's containers find each other by service name through the CNI dnsname plugin, which Debian ships apart.
  [ -x /usr/lib/cni/dnsname ] || missing+=(golang-github-containernetworking-plugin-dnsname)
  if ((${#missing[@]})); then
    log "installing ${missing[*]} from Debian"
    mkdir -p "$STATE"
    { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$STATE/apt.log" 2>&1 ||
      { tail -n 30 "$STATE/apt.log" >&2; exit 1; }
  fi
  # Debian's crun refuses these machines' hybrid cgroups, and Podman's default ulimits exceed their hard limits.
  local conf=/etc/containers/containers.conf nofile
  nofile="$(ulimit -Hn)"
  if [[ ! -f "$conf" ]]; then
    mkdir -p /etc/containers
    printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=%s:%s"]\n[engine]\nruntime = "runc"\n' \
      "$nofile" "$nofile" "$nofile" "$nofile" >"$conf"
    log "wrote $conf (runtime runc, ulimits nofile/nproc $nofile)"
  fi
}

answers() { curl -fsS --max-time 5 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1; }

socket() {
  install
  if ! answers; then
    mkdir -p "$STATE" "$(dirname "$SOCKET")"
    rm -f "$SOCKET"
    # The service outlives this script (a session of its own); --time=0 keeps it up while idle.
    launch_detached "$STATE/service.pid" "$STATE/service.log" podman system service --time=0 "unix://$SOCKET"
    local i
    for ((i = 0; i < 100; i++)); do answers && break; sleep 0.2; done
    answers || { log "the API socket $SOCKET does not answer (log: $STATE/service.log)"; exit 1; }
  fi
  echo "export DOCKER_HOST=unix://$SOCKET"
}

stop() {
  local pid
  pid="$(cat "$STATE/service.pid" 2>/dev/null || true)"
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true
  rm -f "$STATE/service.pid"
}

case "${1:-}" in
  install) install ;;
  socket) socket ;;
  stop) stop ;;
  *)
    sed -n '2,8p' "$0" >&2
    exit 2
    ;;
esac
