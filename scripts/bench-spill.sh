#!/usr/bin/env bash
# Speed and memory of result files, against baselines measured in the same run:
#
#  1. A 100 MiB result, as plain text and as a text holding a JSON array:
#     `dispatch call large` spilled to a file (--threshold 1MiB --spill-dir)
#     versus the same call printed to /dev/null without spilling, and `cat`
#     of the file it produced; dispatch's own peak RSS ÷ the payload. With
#     BASE=<git revision> (e.g. BASE=main), dispatch built from that
#     revision is measured too, for a before/after figure.
#  2. grep over a 1 GB indented-JSON file: `dispatch readresult --op grep`
#     (which scans the whole file, counts every match and shows 10) versus
#     `grep -n -i` (prints every match) and `grep -c -i` (counts them), for a
#     rare and a frequent pattern.
#
# Wall time and peak RSS come from /usr/bin/time -v. Its peak RSS is the
# largest of the process and the children it reaped, so for dispatch call it
# is max(dispatch, fixture server); "own" is dispatch's own peak (VmHWM),
# sampled from /proc every 20 ms while it runs.
#
# Needs /usr/bin/time; installs it with `apt-get install -y time` when missing
# (as root, or with sudo). Needs ~1.2 GB of free disk in $TMPDIR; everything it
# writes is deleted at exit. Usage: [BASE=main] bash scripts/bench-spill.sh [1|2]
# (one section only, when given).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C # the same byte-wise matching for grep and dispatch

if [ ! -x /usr/bin/time ]; then
	echo "== installing GNU time (apt-get install -y time)"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get install -y time >/dev/null || { $sudo apt-get update >/dev/null && $sudo apt-get install -y time >/dev/null; }
fi

echo "== building dispatch and the fixture server"
(cd "$root" && go build -o "$work/dispatch" . && go build -o "$work/fixture" ./testdata/fixture)
d=("$work/dispatch" --no-cache --mcp "$work/fixture")
if [ -n "${BASE:-}" ]; then
	mkdir "$work/base"
	git -C "$root" archive "$BASE" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/dispatch-base" .)
fi

# measure OUT CMD...: runs CMD with stdout to OUT and sets wall (seconds),
# rss (MiB, process and reaped children) and own (MiB, the process itself).
measure() {
	local out=$1
	shift
	/usr/bin/time -v -o "$work/time.txt" "$@" >"$out" 2>"$work/stderr.txt" &
	local tpid=$! pid="" hwm=0 v
	while kill -0 "$tpid" 2>/dev/null; do
		[ -n "$pid" ] || pid=$(pgrep -P "$tpid" | head -n1 || true)
		if [ -n "$pid" ]; then
			v=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
			[ -z "$v" ] || hwm=$v
		fi
		sleep 0.02
	done
	if ! wait "$tpid"; then
		echo "failed: $*" >&2
		cat "$work/stderr.txt" "$work/time.txt" >&2
		exit 1
	fi
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/time.txt")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/time.txt")
	own=$(awk -v k="$hwm" 'BEGIN {printf "%.0f", k / 1024}')
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}'; }
row() { printf "  %-44s %8.2f s %8s MiB %8s MiB\n" "$1" "$2" "$3" "$4"; }
header() { printf "  %-44s %10s %12s %12s\n" "" "wall" "peak RSS" "own RSS"; }

section=${1:-all}
payload=104857600 # 100 MiB
shapes=(text array)
[ "$section" = all ] || [ "$section" = 1 ] || shapes=()
for shape in "${shapes[@]}"; do
	echo
	echo "== 1. a 100 MiB result (large {\"bytes\":$payload,\"shape\":\"$shape\"})"
	args="{\"bytes\":$payload,\"shape\":\"$shape\"}"
	header
	if [ -n "${BASE:-}" ]; then
		measure /dev/null "$work/dispatch-base" --no-cache --mcp "$work/fixture" --threshold 1MiB --spill-dir "$work/spill-base" call large "$args"
		row "dispatch $BASE call, spilled to a file" "$wall" "$rss" "$own"
		base_own=$own
		rm -rf "$work/spill-base"
	fi
	measure /dev/null "${d[@]}" --threshold 1MiB --spill-dir "$work/spill" call large "$args"
	spill_wall=$wall spill_rss=$rss spill_own=$own
	file=$(ls "$work"/spill/*.*)
	measure /dev/null "${d[@]}" call large "$args"
	plain_wall=$wall plain_rss=$rss plain_own=$own
	measure /dev/null cat "$file"
	cat_wall=$wall cat_rss=$rss
	row "dispatch call, spilled to a file" "$spill_wall" "$spill_rss" "$spill_own"
	row "dispatch call, printed to /dev/null" "$plain_wall" "$plain_rss" "$plain_own"
	row "cat of the spill file ($(($(stat -c %s "$file") / 1000000)) MB)" "$cat_wall" "$cat_rss" "-"
	echo "  spill / no spill: time $(ratio "$spill_wall" "$plain_wall"), peak RSS $(ratio "$spill_rss" "$plain_rss"), own RSS $(ratio "$spill_own" "$plain_own")"
	echo "  own peak RSS spilling / payload: $(ratio "$spill_own" 100)$([ -z "${BASE:-}" ] || echo " ($BASE: $(ratio "$base_own" 100))")"
	rm -rf "$work/spill"
done

if [ "$section" != all ] && [ "$section" != 2 ]; then
	echo
	echo "bench-spill finished"
	exit 0
fi
echo
echo "== 2. grep over a 1 GB spill-like file"
big="$work/big.json"
echo "  generating $big ..."
awk -v target=1000000000 'BEGIN {
	split("ok ok ok error", status, " ")
	printf "[\n"; total = 2
	for (i = 1; total < target; i++) {
		s = sprintf("  {\n    \"id\": %d,\n    \"name\": \"item-%d\",\n    \"size\": %d,\n    \"status\": \"%s\",\n    \"message\": \"request %d handled by worker %d\"\n  },\n",
			i, i, (i * 7919) % 100000, status[i % 4 + 1], i, i % 64)
		printf "%s", s; total += length(s)
	}
	printf "  {}\n]\n"
}' >"$big"
echo "  $(($(stat -c %s "$big") / 1000000)) MB, $(wc -l <"$big") lines"
cat "$big" >/dev/null # warm the page cache for both
header
for pattern in '"name": "item-4242424"' 'STATUS": "ERROR'; do
	measure "$work/dispatch.out" "$work/dispatch" --json readresult "$big" --op grep --pattern "$pattern" --max-matches 10
	d_wall=$wall d_rss=$rss
	d_count=$(sed -n 's/.*\[\([0-9]*\) matching lines in all.*/\1/p' "$work/dispatch.out")
	measure "$work/grep.out" grep -c -i -e "$pattern" "$big"
	c_wall=$wall c_rss=$rss
	g_count=$(cat "$work/grep.out")
	# To a file: GNU grep stops at the first match when its output is /dev/null.
	measure "$work/grep-n.out" grep -n -i -e "$pattern" "$big"
	n_wall=$wall n_rss=$rss
	rm -f "$work/grep-n.out"
	echo "  pattern '$pattern': dispatch counts $d_count matching lines, grep -c $g_count"
	[ "$d_count" = "$g_count" ] || { echo "  MISMATCH" >&2; cat "$work/dispatch.out" >&2; exit 1; }
	row "dispatch readresult --op grep --max-matches 10" "$d_wall" "$d_rss" "$d_rss"
	row "grep -n -i (prints every match)" "$n_wall" "$n_rss" "$n_rss"
	row "grep -c -i (count only)" "$c_wall" "$c_rss" "$c_rss"
	echo "  dispatch / grep -n -i: time $(ratio "$d_wall" "$n_wall"), peak RSS $(ratio "$d_rss" "$n_rss")"
	echo "  dispatch / grep -c -i: time $(ratio "$d_wall" "$c_wall"), peak RSS $(ratio "$d_rss" "$c_rss")"
done
rm -f "$big"
echo
echo "bench-spill finished"
