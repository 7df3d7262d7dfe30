#!/usr/bin/env bash
# Warm one-shot search and list against process start: 16 fixture servers
# configured (about 300 KB of cached catalog), the cache warmed, then N
# alternating runs (default 30) of `dispatch --version`, `dispatch search`
# and `dispatch list --tools`. Checks first that warm answers equal cold
# ones, then prints the medians and the ratios search ÷ version and
# list ÷ version (see scripts/searchbench).
#
# Usage: bash scripts/bench-search.sh [N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$root"
go build -o "$work/dispatch" .
go build -o "$work/fixture" ./testdata/fixture
go build -o "$work/searchbench" ./scripts/searchbench
"$work/searchbench" "$work/dispatch" "$work/fixture" "$n"
