#!/usr/bin/env bash
# `npm start`: install what is missing, start the local components, then every service in the foreground.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prepare.sh
source scripts/local-secrets.sh
ensure_dev_secrets
load_dev_secrets
# The gateway serves the viewer's production build (docs/viewer.md).
node --import tsx scripts/build-viewer.ts
exec node --import tsx scripts/start.ts
