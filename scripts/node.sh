#!/usr/bin/env bash
# Runs a command on Node 24 (scripts/ensure-node.sh): the npm scripts that run the project's code or its tools
# (tsc, eslint, prettier, vitest, tsx) go through it, so that none of them runs on an older `node` of the machine.
# Usage: node.sh COMMAND [ARGS...], from the repository's root (npm runs scripts there, with node_modules/.bin on
# the PATH).
set -euo pipefail
source scripts/ensure-node.sh
exec "$@"
