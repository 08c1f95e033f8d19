# Sourced by the test tiers that run Python tools from PyPI (chdb, the API tools).
# ensure_venv DIR REQUIREMENTS: a virtual environment under DIR with the pinned requirements installed, and VENV_BIN
# set to the folder of its commands. With Python 3 and its venv module here, that is DIR/host/bin. Without them, the
# environment (DIR/container) is made and run in a container (scripts/python-container.sh) and VENV_BIN holds one
# wrapper per command, so that callers run the tools the same way on both paths (docs/testing.md "Tools").
ensure_venv() {
  local dir="$1" requirements="$2" mode=host run=() venv
  if ! host_python; then
    mode=container
    run=(bash "$PWD/scripts/python-container.sh")
  fi
  # One environment per path: one made on a path cannot run on the other, and the containers tier runs beside the
  # tiers on the machine's Python (scripts/test.sh). Made and installed under a lock of its own where flock exists,
  # for two runs on one path at once.
  venv="$dir/$mode"
  mkdir -p "$dir"
  (
    if command -v flock >/dev/null; then flock 9; fi
    if [ ! -f "$venv/.made" ]; then
      rm -rf "$venv"
      "${run[@]}" python3 -m venv "$venv" || {
        rm -rf "$venv"
        echo "python3 -m venv failed" >&2
        exit 1
      }
      touch "$venv/.made"
    fi
    "${run[@]}" "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  ) 9>"$dir/$mode.lock" || return 1
  VENV_BIN="$venv/bin"
  if [ "$mode" = container ]; then
    VENV_BIN="$venv/container-bin"
    mkdir -p "$VENV_BIN"
    local command
    for command in "$venv"/bin/*; do
      # Every command but the activation scripts; python itself is a link into the image, dangling here.
      case "${command##*/}" in activate* | Activate*) continue ;; esac
      container_wrapper "$command" "$VENV_BIN/${command##*/}"
    done
  fi
}

# ensure_python3: `python3` on the PATH, the machine's, else a wrapper that runs it in a container.
ensure_python3() {
  command -v python3 >/dev/null && return 0
  local bin="$PWD/.data/python-container/bin"
  mkdir -p "$bin"
  container_wrapper python3 "$bin/python3"
  export PATH="$bin:$PATH"
}

# container_wrapper COMMAND FILE: FILE, an executable that runs COMMAND in a container with its arguments. The
# engine and image in use now stay its defaults, for callers that run it with a bare environment.
container_wrapper() {
  {
    echo '#!/usr/bin/env bash'
    local name
    for name in DOCKER_HOST PYTHON_IMAGE; do
      [ -n "${!name:-}" ] && printf 'export %s="${%s:-%s}"\n' "$name" "$name" "$(printf %q "${!name}")"
    done
    printf 'exec bash %q %q "$@"\n' "$PWD/scripts/python-container.sh" "$1"
  } >"$2.$$"
  # Replaced whole, never half-written, for a run that uses it meanwhile.
  chmod +x "$2.$$" && mv -f "$2.$$" "$2"
}

# host_python: whether this machine's python3 can make virtual environments.
host_python() {
  command -v python3 >/dev/null && python3 -c 'import ensurepip, venv' 2>/dev/null
}
