#!/usr/bin/env bash
# readresult grep over a 1 GB file against `grep -n -i`, in the same run,
# for a rare and a frequent pattern: wall time and peak RSS of each, and
# their ratios. With BASE=<git revision> (e.g. BASE=main) it also times
# dispatch built from that revision, for a before/after figure.
#
# Needs /usr/bin/time (apt-get install -y time) and ~1.1 GB free in
# $TMPDIR; the file is deleted at exit. Usage: [BASE=main] bash scripts/bench-grep.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C # the same byte-wise matching for grep and dispatch

echo "== building dispatch"
(cd "$root" && go build -o "$work/dispatch" .)
bins=("$work/dispatch")
if [ -n "${BASE:-}" ]; then
	mkdir "$work/base"
	git -C "$root" archive "$BASE" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/dispatch-base" .)
	bins+=("$work/dispatch-base")
fi

# measure OUT CMD...: sets wall (seconds) and rss (MiB) from /usr/bin/time -v.
measure() {
	local out=$1
	shift
	/usr/bin/time -v -o "$work/time.txt" "$@" >"$out" 2>"$work/stderr.txt" || {
		echo "failed: $*" >&2
		cat "$work/stderr.txt" >&2
		exit 1
	}
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/time.txt")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/time.txt")
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}'; }

big="$work/big.json"
echo "== generating a 1 GB indented-JSON file"
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
echo "  $(($(stat -c %s "$big") / 1000000)) MB"
cat "$big" >/dev/null # warm the page cache for every run

for pattern in '"name": "item-4242424"' 'STATUS": "ERROR' '"item-4242\d\d\d",'; do
	echo
	echo "== pattern '$pattern'"
	# grep -F for literals; for the regular expression grep -E, with \d
	# written [0-9] (grep -P is several times slower than -E).
	flag=-F gpattern=$pattern
	case $pattern in *'\d'*) flag=-E gpattern=${pattern//\\d/[0-9]} ;; esac
	# To a file: GNU grep stops at the first match when its output is /dev/null.
	measure "$work/grep.out" grep -n -i $flag -e "$gpattern" "$big"
	g_wall=$wall g_rss=$rss g_count=$(wc -l <"$work/grep.out")
	rm -f "$work/grep.out"
	printf "  %-32s %7.2f s %6s MiB  %s matches\n" "grep -n -i $flag" "$g_wall" "$g_rss" "$g_count"
	for bin in "${bins[@]}"; do
		measure "$work/d.out" "$bin" --json readresult "$big" --op grep --pattern "$pattern" --max-matches 10
		d_count=$(sed -n 's/.*\[\([0-9]*\) matching lines in all.*/\1/p' "$work/d.out")
		[ "$d_count" = "$g_count" ] || { echo "  MISMATCH: $(basename "$bin") counts $d_count" >&2; exit 1; }
		printf "  %-32s %7.2f s %6s MiB  time ÷ grep %s\n" "$(basename "$bin") readresult grep" "$wall" "$rss" "$(ratio "$wall" "$g_wall")"
	done
done
echo
echo "bench-grep finished"
