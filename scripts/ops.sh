#!/usr/bin/env bash
# `npm run --silent ops -- <command>`: the operator CLI, with the checkout's development secrets (made by
# `npm start`) when the environment does not set them. Prints only the command's own output.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-node.sh
source scripts/local-secrets.sh
load_dev_secrets
# kafkajs 2.2.4 makes Node 24 warn at every start (services/shared/src/platform/node-flags.ts).
exec node --disable-warning=TimeoutNegativeWarning --import tsx services/ops/src/main.ts "$@"
