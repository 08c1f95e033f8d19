#!/usr/bin/env bash
# python-container.sh COMMAND [ARG...]: runs a Python command in a container, for a machine without a usable
# Python 3 but with a Docker-compatible engine (docs/testing.md "Tools"). The container sees what the command on
# the host would: the project and the temporary folder at the same paths, the host's network (the tests' servers
# listen on loopback), the caller's user, working folder, standard streams and environment. A COMMAND inside a
# virtual environment runs with that environment's bin first on the PATH, as if activated.
# Image: PYTHON_IMAGE, else python:3.12-slim-bookworm. `podman`, else `docker`, runs it: the docker CLI on
# Podman's API socket loses the command's exit code with --rm (podman issue 18889), and Podman's own CLI does not.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
engine="$(command -v podman || command -v docker)" || {
  echo "python-container: neither docker nor podman found" >&2
  exit 1
}
home="$root/.data/python-container/home"
mkdir -p "$home"
path=/usr/local/bin:/usr/bin:/bin
[ -f "$(dirname "$1")/activate" ] && path="$(dirname "$1"):$path"
args=(run --rm -i --init --network host -u "$(id -u):$(id -g)" -w "$PWD" -v "$root:$root")
tmp="$(cd "${TMPDIR:-/tmp}" && pwd -P)"
case "$tmp/" in "$root"/*) ;; *) args+=(-v "$tmp:$tmp") ;; esac
# A certificate bundle the host's tools are told to trust (a network that re-signs TLS) is trusted inside too.
# Docker refuses a second mount on one path, and the three often name the same file.
mounted=" "
for name in SSL_CERT_FILE PIP_CERT REQUESTS_CA_BUNDLE; do
  file="${!name:-}"
  [ -n "$file" ] && [ -r "$file" ] && [[ "$mounted" != *" $file "* ]] || continue
  args+=(-v "$file:$file:ro")
  mounted+="$file "
done
# The environment, but for what describes the host itself rather than the command.
for name in $(compgen -e); do
  case "$name" in
    PATH | HOME | PWD | OLDPWD | SHLVL | _ | HOSTNAME | USER | LOGNAME | SHELL | TERM | TMPDIR | LD_* | PYTHON* | \
      VIRTUAL_ENV | PYENV* | DOCKER_* | CONTAINER_* | BASH_* | PIP_FIND_LINKS) ;;
    *) args+=(-e "$name") ;;
  esac
done
args+=(-e "HOME=$home" -e "PATH=$path" -e "TMPDIR=$tmp")
exec "$engine" "${args[@]}" "${PYTHON_IMAGE:-python:3.12-slim-bookworm}" "$@"
