#!/usr/bin/env bash
# dispatch end to end against the bundled demo MCP server, offline:
# list -> search -> call, a large result saved to a file, and reading it back.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== building dispatch and the demo server"
(cd "$root" && go build -o "$work/dispatch" . && go build -o "$work/demo-server" ./testdata/fixture)
d() { "$work/dispatch" --mcp "$work/demo-server --demo" "$@"; }

echo
echo "== dispatch list"
d list
echo
echo "== dispatch search 'what is the weather in a city'"
d search what is the weather in a city
echo
echo "== dispatch call get_weather '{\"city\":\"Lisbon\"}'"
d call get_weather '{"city":"Lisbon"}'
echo
echo "== dispatch call list_files (a ~250 KB result) with --threshold 50KiB: saved to a file, not printed"
d --threshold 50KiB --spill-dir "$work/results" call list_files '{"count":2000}'
file=$(ls "$work"/results/*.json)
echo
echo "== dispatch readresult FILE --op grep --pattern 'auth/.*\.md' --max-matches 3"
"$work/dispatch" readresult "$file" --op grep --pattern 'auth/.*\.md' --max-matches 3
echo
echo "== dispatch readresult FILE --op query --path '#(size>65000)#.path'"
"$work/dispatch" readresult "$file" --op query --path '#(size>65000)#.path'
echo
echo "demo finished: dispatch listed, searched, called, saved a large result and read it back."
