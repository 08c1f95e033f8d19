#!/usr/bin/env bash
# Prints the path of a Go toolchain, for the tests that build Go (the reference verifier of docs/webhooks.md, the
# metrics linter of infra/promlint): `go` on PATH if it is 1.26 or newer, else the official toolchain from the Go
# module proxy (golang.org/toolchain, the zip `go` itself downloads when it switches versions), checked against
# the SHA-256 pinned below and unpacked once under .data/. That needs neither root nor a package manager, so a contributor
# with only Node and Docker has it too. Messages go to stderr, so that stdout is the path alone.
set -euo pipefail
cd "$(dirname "$0")/.."
# infra/promlint's go.mod asks for Go 1.26.
if minor=$(go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p') && [ "${minor:-0}" -ge 26 ]; then
  command -v go
  exit 0
fi
version=1.26.8
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-amd64 sum=30c2b1bf7dcc88d3eb0a1364e47ddd9128edb3110a30e8a0ef61cd5856b31de7 ;;
  Linux-aarch64) platform=linux-arm64 sum=02b36b6787b3ac767668f630e2998df45a3b1f9ffee08d1bf3ef6487cd658d99 ;;
  Darwin-x86_64) platform=darwin-amd64 sum=fe99a2009e5bb51e06d7784f1a486478673512041c2671157bd382806e2aedcf ;;
  Darwin-arm64) platform=darwin-arm64 sum=0aad5fb52b88498885290178adc0bcfe429bc63012621af9f83282eb640bd9c7 ;;
  *)
    echo "go: not found, and no pinned toolchain for $(uname -s) $(uname -m); install Go 1.24 or newer" >&2
    exit 1
    ;;
esac
dir=$PWD/.data/go-$version-$platform
mkdir -p "$(dirname "$dir")"
# Under a lock where flock exists (Linux, where the containers tier runs beside the local one): one run fetches it,
# another waits and finds it.
(
  if command -v flock >/dev/null; then flock 9; fi
  if [ ! -x "$dir/bin/go" ]; then
    module=golang.org/toolchain@v0.0.1-go$version.$platform
    echo "Fetching Go $version from the Go module proxy ($module)..." >&2
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp" "$dir.partial"' EXIT
    curl -fsSL --retry 3 -o "$tmp/go.zip" \
      "${GOPROXY_URL:-https://proxy.golang.org}/golang.org/toolchain/@v/v0.0.1-go$version.$platform.zip"
    got=$( (sha256sum 2>/dev/null || shasum -a 256) <"$tmp/go.zip" | cut -d' ' -f1)
    [ "$got" = "$sum" ] || {
      echo "go: the toolchain's SHA-256 is $got, expected $sum" >&2
      exit 1
    }
    command -v unzip >/dev/null || {
      echo "go: unzip is needed to unpack the toolchain" >&2
      exit 1
    }
    unzip -q "$tmp/go.zip" -d "$tmp/unpacked"
    rm -rf "$dir.partial" && mv "$tmp/unpacked/$module" "$dir.partial" && rm -rf "$dir" && mv "$dir.partial" "$dir"
  fi
) 9>"$dir.lock"
echo "$dir/bin/go"
