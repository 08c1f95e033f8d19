#!/usr/bin/env bash
# `npm start`: install what is missing, start the local components, then every service in the foreground.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
if [ "${AUDIT_EXTERNAL_STACK:-false}" != "true" ]; then
  bash infra/local/stack.sh up
  eval "$(bash infra/local/stack.sh env)"
fi
exec node --import tsx scripts/start.ts
