#!/usr/bin/env bash
# Per-call overhead of dispatch: the same small echo call made directly to
# the fixture MCP server over stdio and through dispatch, with the same
# mcp-go client, alternating N times (default 2000). Prints each median
# latency and their ratio (dispatch ÷ direct) from BenchmarkCallOverhead.
#
# Usage: bash scripts/bench-overhead.sh [N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-2000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

cd "$root"
if ! go test -run '^$' -bench '^BenchmarkCallOverhead$' -benchtime "${n}x" -count 1 . >"$out" 2>&1; then
	cat "$out" >&2
	exit 1
fi
line=$(grep '^BenchmarkCallOverhead' "$out" || true)
if [ -z "$line" ]; then
	cat "$out" >&2
	echo "bench-overhead: no benchmark result" >&2
	exit 1
fi
echo "$line"
# The line reads: NAME N NS ns/op V1 direct-µs/call V2 dispatch-µs/call V3 overhead-ratio
echo "$line" | awk -v n="$n" '{
	for (i = 1; i < NF; i++) m[$(i + 1)] = $i
	printf "calls: %d of each\n", n
	printf "direct median:   %s µs\n", m["direct-µs/call"]
	printf "dispatch median: %s µs\n", m["dispatch-µs/call"]
	printf "overhead ratio (dispatch / direct): %s\n", m["overhead-ratio"]
}'
