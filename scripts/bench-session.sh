#!/usr/bin/env bash
# What a shell session saves a script: 20 sequential `dispatch call echo`
# from bash inside a session (the server started once, kept warm) versus
# the same 20 without one (each command starts the server again). Against
# server-everything from npm (the same pinned package as interop.sh;
# DISPATCH_INTEROP_CACHE=DIR reuses an install), or the Go fixture server
# when npm is not installed. Prints the per-call milliseconds of both and
# their ratio; the target is <= 15 ms per call in a session.
# With BASE=<git revision> (e.g. BASE=main) dispatch built from that
# revision makes the same in-session calls and --version runs, alternating
# with this one's in the same session: a before/after from one run.
# Usage: [BASE=main] bash scripts/bench-session.sh [CALLS]
set -euo pipefail

EVERYTHING=@modelcontextprotocol/server-everything@2026.8.31
calls=${1:-20}

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${DISPATCH_INTEROP_CACHE:-$root/scripts/.cache/interop}
work=$(mktemp -d)
export XDG_RUNTIME_DIR=$work/runtime # the bench's sessions, nobody else's
mkdir -m 700 "$XDG_RUNTIME_DIR"
unset DISPATCH_SESSION
cleanup() {
	if [ -n "${DISPATCH_SESSION-}" ]; then "$work/dispatch" session stop >/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "# building dispatch and the fixture server"
(cd "$root" && go build -o "$work/dispatch" . && go build -o "$work/fixture" ./testdata/fixture)
if [ -n "${BASE:-}" ]; then
	echo "# building dispatch at $BASE"
	mkdir "$work/base"
	git -C "$root" archive "$BASE" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/dispatch-base" .)
fi

bin=$cache/node_modules/.bin
if [ ! -x "$bin/mcp-server-everything" ] && command -v npm >/dev/null; then
	echo "# installing $EVERYTHING into $cache"
	mkdir -p "$cache"
	(cd "$cache" && { [ -f package.json ] || npm init -y >/dev/null; } &&
		npm install --no-audit --no-fund --loglevel=error $EVERYTHING >/dev/null)
fi
if [ -x "$bin/mcp-server-everything" ]; then
	server="$bin/mcp-server-everything"
	echo "# server: server-everything (npm)"
else
	server="$work/fixture"
	echo "# server: the Go fixture (npm not installed)"
fi
d=("$work/dispatch" --mcp "$server")

now_ns() { date +%s%N; }

# calls_ms: runs $calls sequential calls with the command given and prints
# the mean milliseconds per call.
calls_ms() {
	local start end i
	start=$(now_ns)
	for ((i = 1; i <= calls; i++)); do
		"$@" call echo message="hello $i" >/dev/null
	done
	end=$(now_ns)
	awk -v ns=$((end - start)) -v n="$calls" 'BEGIN {printf "%.1f", ns / n / 1e6}'
}

# The floor: starting the dispatch binary at all (Go runtime and package
# initialisation), which every command pays, session or not.
floor_ms() {
	local start i
	start=$(now_ns)
	for ((i = 1; i <= calls; i++)); do "$1" --version >/dev/null; done
	awk -v ns=$(($(now_ns) - start)) -v n="$calls" 'BEGIN {printf "%.1f", ns / n / 1e6}'
}
floor=$(floor_ms "$work/dispatch")
[ -z "${BASE:-}" ] || base_floor=$(floor_ms "$work/dispatch-base")

"${d[@]}" call echo message=warm-up >/dev/null # fills the catalog cache for both
without=$(calls_ms "${d[@]}")

eval "$("${d[@]}" session start --sh)" >/dev/null
"$work/dispatch" call echo message=warm-up >/dev/null # starts the server once
within=$(calls_ms "$work/dispatch")
if [ -n "${BASE:-}" ]; then
	# Twice each, in both orders, so that neither always runs first.
	base_within=$(calls_ms "$work/dispatch-base")
	base_within2=$(calls_ms "$work/dispatch-base")
	within2=$(calls_ms "$work/dispatch")
fi
"$work/dispatch" session status | sed -n '2,4p'
eval "$("$work/dispatch" session stop --sh)" >/dev/null

echo
printf '%-28s %8s ms/call\n' "without a session" "$without"
printf '%-28s %8s ms/call\n' "in a session" "$within"
printf '%-28s %8s ms/run\n' "floor: dispatch --version" "$floor"
if [ -n "${BASE:-}" ]; then
	printf '%-28s %8s ms/call\n' "in a session, again" "$within2"
	printf '%-28s %8s %s ms/call\n' "in a session, $BASE" "$base_within" "$base_within2"
	printf '%-28s %8s ms/run\n' "floor: $BASE --version" "$base_floor"
fi
awk -v a="$without" -v b="$within" 'BEGIN {printf "ratio (without / in session)  %7.1fx\n", a / b}'
awk -v a="$within" -v b="$floor" 'BEGIN {printf "ratio (in session / floor)    %7.2fx\n", a / b}'
awk -v b="$within" 'BEGIN {if (b <= 15) print "target <= 15 ms in a session: met"; else print "target <= 15 ms in a session: NOT met"}'
