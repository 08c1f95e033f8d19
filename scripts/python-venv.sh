# Sourced by the test tiers that run Python tools from PyPI (chdb, the API tools).
# ensure_venv DIR REQUIREMENTS: a virtual environment at DIR with the pinned requirements installed.
ensure_venv() {
  local venv="$1" requirements="$2"
  if [ ! -x "$venv/bin/pip" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" || {
      rm -rf "$venv"
      echo "python3 -m venv failed: install Python 3's venv module (Debian: apt-get install python3-venv)" >&2
      return 1
    }
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
}
