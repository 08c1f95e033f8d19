#!/usr/bin/env bash
# The container engine on machines without Docker (docs/operations.md "Containers on our machines"): Debian's
# Podman with the runc runtime, ulimits within the machine's hard limits, and its Docker-compatible API socket,
# which docker-compose and testcontainers drive.
#   podman.sh install   apt packages and /etc/containers/containers.conf (root)
#   podman.sh socket    install if needed, start the API socket if it does not answer, finish removals cut short,
#                       print `export DOCKER_HOST=…`
#   podman.sh stop      stop the API socket this script started, and wait until it has exited
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
    {
      apt_waiting apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT_S" update -q &&
        apt_waiting apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT_S" install -y -q --no-install-recommends \
          "${missing[@]}"
    } >"$STATE/apt.log" 2>&1 || { tail -n 30 "$STATE/apt.log" >&2; exit 1; }
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

# A container whose removal was cut short (the service stopped half-way through it) stays in Podman's list with its
# storage gone, and from then on every listing through the API fails with "getting container from store …: container
# not known": docker-compose and testcontainers both stop working. `podman rm -f` finishes such a removal. A removal
# that fails is left for whatever lists next to report: this script still prints DOCKER_HOST.
repair() {
  local i body id last=
  for ((i = 0; i < 20; i++)); do
    body="$(curl -sS --max-time 60 --unix-socket "$SOCKET" 'http://d/containers/json?all=1')" || return 0
    id="$(sed -n 's/.*getting container from store \\"\([0-9a-f]\{64\}\)\\".*/\1/p' <<<"$body")"
    [[ -n "$id" && "$id" != "$last" ]] || return 0
    last="$id"
    log "removing container ${id:0:12}: its storage is gone (a removal cut short)"
    podman rm -f "$id" >/dev/null || log "could not remove container ${id:0:12}"
  done
}

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
  repair
  echo "export DOCKER_HOST=unix://$SOCKET"
}

# Stopped with SIGTERM (then SIGKILL, as the stack's processes) and waited for, so that the next start finds the
# socket free. A removal the service was doing may still be cut short: the next `socket` repairs it.
stop() {
  local pid
  pid="$(read_pid "$STATE/service.pid")" || true
  if pid_matches "$pid" "system service"; then stop_pid podman "$pid"; fi
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
