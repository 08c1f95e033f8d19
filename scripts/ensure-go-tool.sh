#!/usr/bin/env bash
# ensure-go-tool.sh NAME: prints the path of the Go program in infra/NAME (the `promtool check metrics` linter the
# metrics test runs, the integrity cross-check of golang.org/x/mod), built once under .data/tools with Go from
# scripts/ensure-go.sh. Its modules come from the Go module proxy, checked against infra/NAME/go.sum. Messages go
# to stderr, so that stdout is the path alone.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: ensure-go-tool.sh NAME}
root=$PWD
src=$root/infra/$name
out=$root/.data/tools/$name
mkdir -p "$(dirname "$out")"
# Under a lock where flock exists (Linux, where the containers tier runs beside the local one): a run never rewrites
# the program while another runs it, and the second finds it built.
(
  if command -v flock >/dev/null; then flock 9; fi
  fresh=true
  for f in "$src"/*.go "$src"/go.mod "$src"/go.sum; do
    [ -x "$out" ] && [ "$out" -nt "$f" ] || fresh=false
  done
  if [ "$fresh" = false ]; then
    go=$(bash scripts/ensure-go.sh)
    echo "Building infra/$name..." >&2
    # -modcacherw: the module cache stays removable with .data by a user who is not root.
    (cd "$src" && env GOCACHE="$root/.data/go/cache" GOPATH="$root/.data/go/path" GOFLAGS="-mod=readonly -modcacherw" \
      GOWORK=off "$go" build -o "$out" .) >&2
  fi
) 9>"$out.lock"
echo "$out"
