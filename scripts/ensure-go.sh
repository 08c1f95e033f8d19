#!/usr/bin/env bash
# Prints the path of a Go toolchain, for the test that runs the Go reference verifier of docs/webhooks.md
# (test/e2e/webhook-verifiers.e2e.test.ts): `go` on PATH, else the official tarball's /usr/local/go/bin/go, else
# Debian's golang-go, installed with apt as the local stack installs its packages. Messages go to stderr, so
# that stdout is the path alone.
set -euo pipefail
for go in "$(command -v go || true)" /usr/local/go/bin/go; do
  if [ -n "$go" ] && [ -x "$go" ]; then
    echo "$go"
    exit 0
  fi
done
# shellcheck source=../infra/local/lib/common.sh
source "$(dirname "$0")/../infra/local/lib/common.sh"
init_data_dir
need_pkg go golang-go command -v go
apt_install_queued
command -v go || die "go: not found after installing golang-go"
