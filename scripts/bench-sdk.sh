#!/usr/bin/env bash
# Per-call latency with the official TypeScript SDK client
# (@modelcontextprotocol/sdk): p50 and p90 of an echo call to
# server-everything made directly, through a bare relay
# (scripts/internal/relay, the pipe hop alone) and via dispatch,
# alternating in one run (scripts/sdk-bench/bench.mjs); prints
# dispatch ÷ direct, relay ÷ direct and dispatch ÷ relay. Installs the same pinned server as
# interop.sh (DISPATCH_INTEROP_CACHE=DIR reuses an install; the SDK comes
# with it). NODE selects node (default: node on PATH); with BASE=<git
# revision> dispatch built from that revision is measured too.
#
# Usage: [BASE=main] [NODE=/path/to/node] bash scripts/bench-sdk.sh [ROUNDS]
set -euo pipefail

EVERYTHING=@modelcontextprotocol/server-everything@2026.8.31

root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-2000}
cache=${DISPATCH_INTEROP_CACHE:-$root/scripts/.cache/interop}
node=${NODE:-$(command -v node || true)}
if [ -z "$node" ]; then
	echo "bench-sdk: no node on PATH; install Node.js or set NODE=/path/to/node" >&2
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

server=$cache/node_modules/@modelcontextprotocol/server-everything/dist/index.js
if [ ! -f "$server" ]; then
	echo "# installing $EVERYTHING into $cache"
	mkdir -p "$cache"
	(cd "$cache" && { [ -f package.json ] || npm init -y >/dev/null; } \
		&& npm install --no-audit --no-fund --loglevel=error $EVERYTHING >/dev/null)
fi

echo "# building dispatch and the relay"
(cd "$root" && go build -o "$work/dispatch" . && go build -o "$work/relay" ./scripts/internal/relay)
baseline=()
if [ -n "${BASE:-}" ]; then
	mkdir "$work/base"
	git -C "$root" archive "$BASE" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/dispatch-base" .)
	baseline=("$work/dispatch-base")
fi
echo "# node $("$node" --version), $(grep -m1 '"version"' "$cache/node_modules/@modelcontextprotocol/sdk/package.json" | tr -d ' ,')"
"$node" "$root/scripts/sdk-bench/bench.mjs" "$cache/node_modules/@modelcontextprotocol/sdk" "$rounds" "$node" "$server" "$work/dispatch" "$work/relay" "${baseline[@]}"
