#!/usr/bin/env bash
# The client under test for the conformance suite's client scenarios:
# dispatch's shell commands against the scenario's server. The suite runs
# this with the server's URL as the last argument and the scenario's name
# in MCP_CONFORMANCE_SCENARIO; DISPATCH_BIN names the binary.
set -euo pipefail
url=${*: -1}
d=("$DISPATCH_BIN" --no-cache --mcp "$url")
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  initialize) exec "${d[@]}" list ;;
  tools_call) exec "${d[@]}" call add_numbers a:=2 b:=3 ;;
  sse-retry) exec "${d[@]}" call test_reconnection ;;
  *) echo "client.sh: no client for scenario ${MCP_CONFORMANCE_SCENARIO:-?}" >&2; exit 2 ;;
esac
