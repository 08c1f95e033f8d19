# Sourced by the test tiers that run Python tools from PyPI (chdb, the API tools).
# ensure_venv DIR REQUIREMENTS: a virtual environment at DIR with the pinned requirements installed, and VENV_BIN
# set to the folder of its commands. With Python 3 and its venv module here, that is DIR/bin. Without them, the
# environment is made and run in a container (scripts/python-container.sh) and VENV_BIN holds one wrapper per
# command, so that callers run the tools the same way on both paths (docs/testing.md "Tools").
ensure_venv() {
  local venv="$1" requirements="$2" mode=host run=()
  if ! host_python; then
    mode=container
    run=(bash "$PWD/scripts/python-container.sh")
  fi
  # An environment made on the other path cannot run on this one.
  [ "$(cat "$venv/.made-on" 2>/dev/null)" = "$mode" ] || rm -rf "$venv"
  if [ ! -f "$venv/.made-on" ]; then
    "${run[@]}" python3 -m venv "$venv" || {
      rm -rf "$venv"
      echo "python3 -m venv failed" >&2
      return 1
    }
    echo "$mode" >"$venv/.made-on"
  fi
  "${run[@]}" "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  VENV_BIN="$venv/bin"
  if [ "$mode" = container ]; then
    VENV_BIN="$venv/container-bin"
    rm -rf "$VENV_BIN" && mkdir -p "$VENV_BIN"
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
  } >"$2"
  chmod +x "$2"
}

# host_python: whether this machine's python3 can make virtual environments.
host_python() {
  command -v python3 >/dev/null && python3 -c 'import ensurepip, venv' 2>/dev/null
}
