#!/usr/bin/env bash
# The client under test for the conformance suite's client scenarios:
# dispatch's shell commands against the scenario's server. The suite runs
# this with the server's URL as the last argument and the scenario's name
# in MCP_CONFORMANCE_SCENARIO; DISPATCH_BIN names the binary. With
# DISPATCH_AUTH_AGENT (the scripts/authcheck binary), an auth scenario is
# played by an agent over dispatch serve instead of the shell commands.
set -euo pipefail
url=${*: -1}
d=("$DISPATCH_BIN" --no-cache --mcp "$url")
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  initialize) exec "${d[@]}" list ;;
  tools_call) exec "${d[@]}" call add_numbers a:=2 b:=3 ;;
  sse-retry) exec "${d[@]}" call test_reconnection ;;
  auth/*)
    # A private state directory per scenario: tokens of one never serve another.
    XDG_STATE_HOME=$(mktemp -d)
    export XDG_STATE_HOME BROWSER="$(dirname "$0")/browser.sh"
    trap 'rm -rf "$XDG_STATE_HOME"' EXIT
    # The server goes in a config file's oauth table, as a user would write
    # it: the suite's fixed Client ID Metadata Document URL (used only where
    # the authorization server takes such documents), and the pre-registered
    # credentials some scenarios give in their context.
    cfg=$XDG_STATE_HOME/servers.json
    URL=$url DIR=$XDG_STATE_HOME node -e '
      const fs = require("fs");
      const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
      const oauth = {clientMetadataUrl: "https://conformance-test.local/client-metadata.json"};
      if (c.client_id) oauth.clientId = c.client_id;
      if (c.client_secret) oauth.clientSecret = c.client_secret;
      if (c.private_key_pem) {
        oauth.privateKeyFile = process.env.DIR + "/client-key.pem";
        fs.writeFileSync(oauth.privateKeyFile, c.private_key_pem, {mode: 0o600});
      }
      if ((c.name || "").startsWith("auth/client-credentials")) oauth.grantType = "client_credentials";
      console.log(JSON.stringify({mcpServers: {remote: {type: "http", url: process.env.URL, oauth}}}));
    ' >"$cfg"
    d=("$DISPATCH_BIN" --no-cache --config "$cfg")
    if [ -n "${DISPATCH_AUTH_AGENT:-}" ]; then
      # dispatch serve under an agent that declares URL elicitation
      # (scripts/authcheck): no login, no $BROWSER; the agent's user is
      # sent to the authorization page.
      unset BROWSER
      exec "$DISPATCH_AUTH_AGENT" "${d[@]}"
    fi
    "${d[@]}" auth login remote --browser-timeout 30s
    "${d[@]}" list
    # A tool call: where the server wants a wider scope for it (step-up),
    # dispatch asks for it through $BROWSER.
    "${d[@]}" call test-tool '{}'
    ;;
  *) echo "client.sh: no client for scenario ${MCP_CONFORMANCE_SCENARIO:-?}" >&2; exit 2 ;;
esac
