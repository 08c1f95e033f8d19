#!/usr/bin/env bash
# Installs the npm dependencies when they are missing or older than the lock file, so that `npm start` and
# `npm test` work on a fresh clone as the first command.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm dependencies (npm ci)..."
  npm ci --no-audit --no-fund --loglevel=error
fi
