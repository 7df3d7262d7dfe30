#!/usr/bin/env bash
# run.sh compares dispatch/toon with the reference TOON encoder,
# @toon-format/toon@2.3.1 (the implementation of spec 3.3):
#
#   1. the same generated documents (a 100-object GitHub-repos list and a
#      ~10 MB table) must encode to identical bytes;
#   2. encode throughput (JSON text -> TOON, in process, after warm-up) of Go
#      and Node is measured in this run and printed as a ratio;
#   3. a few hundred random JSON documents, encoded with a rotation of
#      options (delimiters, indent, key folding, flattenDepth), must match
#      byte for byte.
#
# Exits non-zero on any mismatch. Usage: scripts/toon-bench/run.sh [random-count]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$root/scripts/.cache/toon-bench"
count="${1:-300}"

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

(cd "$root" && go build -o "$work/goenc" ./scripts/toon-bench/goenc)
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
