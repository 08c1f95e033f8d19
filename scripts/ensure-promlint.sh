#!/usr/bin/env bash
# Prints the path of infra/promlint, the `promtool check metrics` linter the metrics test runs on every service's
# /metrics, built once under .data/ with Go from scripts/ensure-go.sh. Its modules come from the Go module proxy,
# checked against infra/promlint/go.sum. Messages go to stderr, so that stdout is the path alone.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
src=$root/infra/promlint
out=$root/.data/tools/promlint
fresh=true
for f in "$src"/main.go "$src"/go.mod "$src"/go.sum; do
  [ -x "$out" ] && [ "$out" -nt "$f" ] || fresh=false
done
if [ "$fresh" = false ]; then
  go=$(bash scripts/ensure-go.sh)
  echo "Building infra/promlint..." >&2
  mkdir -p "$(dirname "$out")"
  # -modcacherw: the module cache stays removable with .data by a user who is not root.
  (cd "$src" && env GOCACHE="$root/.data/go/cache" GOPATH="$root/.data/go/path" GOFLAGS="-mod=readonly -modcacherw" \
    GOWORK=off "$go" build -o "$out" .) >&2
fi
echo "$out"
