# Shared helpers for stack.sh. Sourced, never executed.
# shellcheck shell=bash

STACK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Repo root comes from the script location so `up` behaves the same from any cwd.
REPO_ROOT="$(cd "$STACK_DIR/../.." && pwd)"

DATA_DIR="${DATA_DIR:-$REPO_ROOT/.data}"
PG_PORT="${PG_PORT:-15432}"
CH_HTTP_PORT="${CH_HTTP_PORT:-15123}"
CH_TCP_PORT="${CH_TCP_PORT:-15900}"
CH_INTERSERVER_PORT="${CH_INTERSERVER_PORT:-15909}"
KAFKA_PORT="${KAFKA_PORT:-15092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-15093}"
S3_PORT="${S3_PORT:-15990}"
# Seconds to wait for a component to become ready / to exit.
START_TIMEOUT="${START_TIMEOUT:-120}"
STOP_TIMEOUT="${STOP_TIMEOUT:-60}"

HOST=127.0.0.1
export DEBIAN_FRONTEND=noninteractive

# shellcheck disable=SC2034 # used by stack.sh
COMPONENTS=(postgres clickhouse kafka s3proxy)

is_root() { [[ "$(id -u)" == 0 ]]; }

# Everything below derives from DATA_DIR; it is made absolute once so pid
# files and configs never depend on the caller's cwd.
init_data_dir() {
  mkdir -p "$DATA_DIR" || die "cannot create DATA_DIR=$DATA_DIR"
  DATA_DIR="$(cd "$DATA_DIR" && pwd)"
  LOG_DIR="$DATA_DIR/logs"
  mkdir -p "$LOG_DIR"
}

die() {
  echo "stack: error: $*" >&2
  exit 1
}

note() { echo "stack: $*" >&2; }

# Print the last lines of each existing log file (to stderr), for failures.
show_logs() {
  local f
  for f in "$@"; do
    [[ -s "$f" ]] || continue
    # A shutdown's own lines fill the tail; the error that caused it is often further up. A Java exception's own
    # line (java.net.BindException: ...) follows its ERROR line and says what went wrong.
    local errors='\b(ERROR|FATAL)\b|^(Caused by: )?[a-z][A-Za-z0-9_.$]*(Exception|Error)\b'
    if grep -qE "$errors" "$f"; then
      echo "----- last errors in $f -----" >&2
      grep -E "$errors" "$f" | tail -n 14 >&2
    fi
    echo "----- tail of $f -----" >&2
    tail -n "${LOG_TAIL_LINES:-40}" "$f" >&2
  done
}

# fail COMPONENT MESSAGE [LOGFILE...]: the single way a component reports failure.
fail() {
  local comp="$1" msg="$2"
  shift 2
  echo "stack: error: $comp: $msg" >&2
  show_logs "$@"
  exit 1
}

# launch_detached PIDFILE OUTLOG CMD...: starts CMD in a session of its own, so it outlives the caller's process
# group, and waits until PIDFILE holds CMD's pid. The process writes its pid itself before it execs CMD: setsid
# forks when its caller leads a process group, which a background job does whenever job control is on (bash -m,
# or monitor in an exported SHELLOPTS), so $! may be a parent that has already exited.
launch_detached() {
  local pidfile="$1" out="$2" i
  shift 2
  rm -f "$pidfile"
  # shellcheck disable=SC2016 # $$ and $@ belong to the inner shell.
  setsid bash -c 'echo "$$" >"$0" && exec nohup "$@"' "$pidfile" "$@" >>"$out" 2>&1 </dev/null 9>&- &
  for ((i = 0; i < 200; i++)); do
    [[ -s "$pidfile" ]] && return 0
    sleep 0.05
  done
  return 1
}

port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$1" 2>/dev/null
}

pid_alive() {
  local pid="$1"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # A zombie still answers kill -0.
  [[ "$(ps -o stat= -p "$pid" 2>/dev/null)" != Z* ]]
}

read_pid() { [[ -r "$1" ]] && head -n1 "$1" 2>/dev/null | tr -dc '0-9'; }

# pid_matches PID STRING: the live process's command line contains STRING.
# Guards against pid reuse after a crash or reboot.
pid_matches() {
  local pid="$1" want="$2"
  pid_alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$want"
}

# ensure_ports_free COMPONENT PORT...: refuse to start on top of a stranger.
ensure_ports_free() {
  local comp="$1" p
  shift
  for p in "$@"; do
    if port_open "$p"; then
      local who
      who="$(ss -ltnpH "sport = :$p" 2>/dev/null | grep -o 'users:.*' | head -n1)"
      fail "$comp" "port $HOST:$p is already in use by a process that is not this stack's $comp${who:+ ($who)}"
    fi
  done
}

# stop_pid COMPONENT PID: SIGTERM, wait STOP_TIMEOUT, then SIGKILL.
stop_pid() {
  local comp="$1" pid="$2" i
  pid_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < STOP_TIMEOUT * 5; i++)); do
    pid_alive "$pid" || return 0
    sleep 0.2
  done
  note "$comp: still running ${STOP_TIMEOUT}s after SIGTERM, sending SIGKILL to $pid"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    pid_alive "$pid" || return 0
    sleep 0.2
  done
  die "$comp: pid $pid survived SIGKILL"
}

# render TEMPLATE OUT VAR...: replace @VAR@ with the variable's value.
# Plain bash substitution so paths need no sed escaping.
render() {
  local tmpl="$1" out="$2" content name
  shift 2
  content="$(<"$tmpl")"
  for name in "$@"; do
    content="${content//@${name}@/${!name}}"
  done
  if [[ "$content" =~ @[A-Z_]+@ ]]; then
    die "unrendered placeholder ${BASH_REMATCH[0]} in $tmpl"
  fi
  printf '%s\n' "$content" >"$out.tmp"
  mv -f "$out.tmp" "$out"
}

status_line() { printf '%-11s %-5s %s\n' "$1" "$2" "$3"; }

# ---------------------------------------------------------------- apt

APT_UPDATED=0
APT_MISSING=()
APT_FOR=()

in_list() {
  local needle="$1" x
  shift
  for x in "$@"; do [[ "$x" == "$needle" ]] && return 0; done
  return 1
}

# need_pkg COMPONENT PACKAGE TEST-COMMAND...: queue PACKAGE when the test fails.
need_pkg() {
  local comp="$1" pkg="$2"
  shift 2
  "$@" >/dev/null 2>&1 && return 0
  in_list "$comp" "${APT_FOR[@]}" || APT_FOR+=("$comp")
  in_list "$pkg" "${APT_MISSING[@]}" || APT_MISSING+=("$pkg")
}

# apt_waiting APT-GET-COMMAND...: runs it, waiting up to ten minutes for the locks another apt holds (Debian's
# unattended upgrades hold them for minutes on many machines) instead of failing at once. The commands pass
# `-o DPkg::Lock::Timeout=…`, which covers dpkg's lock; `apt-get update`'s lock on the package lists it does not
# cover (apt 2.6), so a refusal naming a lock is tried again every 5 s.
APT_LOCK_WAIT_S=600
apt_waiting() {
  local deadline=$((SECONDS + APT_LOCK_WAIT_S)) out status
  out="$(mktemp)"
  while :; do
    "$@" >"$out" 2>&1 </dev/null && status=0 || status=$?
    cat "$out"
    if ((status != 0 && SECONDS < deadline)) &&
      grep -qE 'Could not get lock|Unable to lock|Unable to acquire the dpkg frontend lock' "$out"; then
      sleep 5
      continue
    fi
    rm -f "$out"
    return "$status"
  done
}

# Installs whatever need_pkg queued, in a single apt transaction.
apt_install_queued() {
  ((${#APT_MISSING[@]})) || return 0
  local log="$LOG_DIR/apt.log" sudo=() who
  who="$(IFS=,; echo "${APT_FOR[*]}")"
  if ! is_root; then
    if ! { command -v sudo >/dev/null && sudo -n true 2>/dev/null; }; then
      die "$who: need root (or passwordless sudo) to apt-get install ${APT_MISSING[*]}"
    fi
    sudo=(sudo -n env DEBIAN_FRONTEND=noninteractive)
  fi
  note "$who: installing ${APT_MISSING[*]} (apt, log: $log)"
  if ((APT_UPDATED == 0)); then
    apt_waiting "${sudo[@]}" apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT_S" update -q >>"$log" 2>&1 ||
      fail "$who" "apt-get update failed" "$log"
    APT_UPDATED=1
  fi
  apt_waiting "${sudo[@]}" apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT_S" install -y -q --no-install-recommends \
    "${APT_MISSING[@]}" >>"$log" 2>&1 ||
    fail "$who" "apt-get install ${APT_MISSING[*]} failed" "$log"
  APT_MISSING=()
  APT_FOR=()
}
