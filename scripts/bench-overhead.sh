#!/usr/bin/env bash
# Per-call overhead of dispatch: the same small echo call made directly to
# the fixture MCP server over stdio, through a bare relay that only copies
# lines (scripts/internal/relay: the pipe hop alone) and through dispatch,
# with the same mcp-go client, alternating N times (default 2000). Prints
# each median latency and the ratios dispatch ÷ direct, relay ÷ direct and
# dispatch ÷ relay from BenchmarkCallOverhead.
# Then throughput under load (BenchmarkLoadThroughput): bursts of 1,000
# concurrent echo calls over 10 fixture servers, directly and through one
# dispatch, alternating B times (default 5); prints calls/s of each and
# their ratio.
#
# With BASE=<git revision> (e.g. BASE=main) dispatch built from that
# revision is measured in the same run too (a third client, alternating
# with the other two), and its ratios are printed beside: before/after.
#
# Usage: [BASE=main] bash scripts/bench-overhead.sh [N] [B]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-2000}
bursts=${2:-5}
out=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$out" "$work"' EXIT

cd "$root"
if [ -n "${BASE:-}" ]; then
	mkdir "$work/base"
	git -C "$root" archive "$BASE" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/dispatch-base" .)
	export DISPATCH_BENCH_BASELINE="$work/dispatch-base"
fi

# bench NAME TIMES runs one benchmark of the root package and prints its
# result line, or the whole output and a failure.
bench() {
	if ! go test -run '^$' -bench "^$1\$" -benchtime "$2x" -count 1 . >"$out" 2>&1; then
		cat "$out" >&2
		exit 1
	fi
	local line
	line=$(grep "^$1" "$out" || true)
	if [ -z "$line" ]; then
		cat "$out" >&2
		echo "bench-overhead: no $1 result" >&2
		exit 1
	fi
	echo "$line"
}

line=$(bench BenchmarkCallOverhead "$n")
echo "$line"
# The line reads: NAME N NS ns/op V1 direct-µs/call V2 dispatch-µs/call ... (value, unit pairs)
echo "$line" | awk -v n="$n" '{
	for (i = 1; i < NF; i++) m[$(i + 1)] = $i
	printf "calls: %d of each\n", n
	printf "direct median:   %s µs\n", m["direct-µs/call"]
	printf "relay median:    %s µs\n", m["relay-µs/call"]
	printf "dispatch median: %s µs\n", m["dispatch-µs/call"]
	printf "overhead ratio (dispatch / direct): %s\n", m["overhead-ratio"]
	printf "relay ratio (relay / direct): %s\n", m["relay-ratio"]
	printf "dispatch / relay: %s\n", m["dispatch-relay-ratio"]
	if ("baseline-ratio" in m) {
		printf "baseline median: %s µs\n", m["baseline-µs/call"]
		printf "baseline ratio (BASE dispatch / direct): %s\n", m["baseline-ratio"]
	}
}'

line=$(bench BenchmarkLoadThroughput "$bursts")
echo "$line"
echo "$line" | awk -v b="$bursts" '{
	for (i = 1; i < NF; i++) m[$(i + 1)] = $i
	printf "bursts: %d of 1000 concurrent calls over 10 servers, each way\n", b
	printf "direct:   %s calls/s\n", m["direct-calls/s"]
	printf "dispatch: %s calls/s\n", m["dispatch-calls/s"]
	printf "throughput ratio (dispatch / direct): %s\n", m["throughput-ratio"]
	if ("baseline-throughput-ratio" in m) {
		printf "baseline: %s calls/s\n", m["baseline-calls/s"]
		printf "baseline throughput ratio (BASE dispatch / direct): %s\n", m["baseline-throughput-ratio"]
	}
}'
