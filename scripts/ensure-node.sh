# Sourced by every script that runs the project's code: Node 24 LTS on the PATH (docs/operations.md "Runtime").
# When the machine's own `node` is older (Debian 12 ships 20, past its end of life), the pinned Node 24 comes from
# the npm registry as the official binary package node-linux-<arch>, unpacked once under .data/.
AUDIT_NODE_VERSION=24.21.0
ensure_node() {
  local major
  major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  [ "$major" -ge 24 ] && return 0
  local arch dir
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) arch=x64 ;;
    Linux-aarch64) arch=arm64 ;;
    *)
      echo "Node 24 or newer is needed (found $(node --version 2>/dev/null || echo none)); install it for $(uname -s)" >&2
      return 1
      ;;
  esac
  dir="$PWD/.data/node-$AUDIT_NODE_VERSION-$arch"
  if [ ! -x "$dir/bin/node" ]; then
    echo "Fetching Node $AUDIT_NODE_VERSION from the npm registry (node-linux-$arch)..." >&2
    local tmp
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-$arch@$AUDIT_NODE_VERSION" >/dev/null) &&
      mkdir -p "$dir.partial" &&
      tar -xzf "$tmp"/node-linux-*.tgz -C "$dir.partial" --strip-components=1 package/bin/node &&
      rm -rf "$dir" && mv "$dir.partial" "$dir"
    local status=$?
    rm -rf "$tmp" "$dir.partial"
    [ "$status" -eq 0 ] || { echo "could not fetch Node $AUDIT_NODE_VERSION" >&2; return 1; }
  fi
  export PATH="$dir/bin:$PATH"
}
ensure_node
