#!/usr/bin/env bash
# What action run saves an agent: a five-step chain over the npm filesystem
# and memory servers (read 1.2 MB of entities, create them, search, open
# every node, write the found names to a file), done as separate
# proxy-dispatch calls and as one run, through the same dispatch binary.
# Prints the bytes of tool results that reach the agent, the bytes it
# writes, and the ratio. Installs the same pinned servers as interop.sh
# (DISPATCH_INTEROP_CACHE=DIR reuses an install). Usage: bash scripts/bench-run.sh
set -euo pipefail

FILESYSTEM=@modelcontextprotocol/server-filesystem@2026.8.31
MEMORY=@modelcontextprotocol/server-memory@2026.8.31

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${DISPATCH_INTEROP_CACHE:-$root/scripts/.cache/interop}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bin=$cache/node_modules/.bin
if [ ! -x "$bin/mcp-server-filesystem" ] || [ ! -x "$bin/mcp-server-memory" ]; then
  echo "# installing $FILESYSTEM $MEMORY into $cache"
  mkdir -p "$cache"
  (cd "$cache" && { [ -f package.json ] || npm init -y >/dev/null; } \
    && npm install --no-audit --no-fund --loglevel=error $FILESYSTEM $MEMORY >/dev/null)
fi

echo "# building dispatch"
(cd "$root" && go build -o "$work/dispatch" . && go build -o "$work/benchrun" ./scripts/benchrun)
"$work/benchrun" "$work/dispatch" "$bin/mcp-server-filesystem" "$bin/mcp-server-memory"
