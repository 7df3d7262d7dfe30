#!/usr/bin/env bash
# Interop: dispatch against the reference MCP servers published on the npm
# registry, over stdio, streamable HTTP and legacy SSE. It installs pinned
# versions into a scratch directory itself, and exits non-zero on any
# failure. Run from anywhere: bash scripts/interop.sh
set -euo pipefail

EVERYTHING=@modelcontextprotocol/server-everything@2026.8.31
FILESYSTEM=@modelcontextprotocol/server-filesystem@2026.8.31
MEMORY=@modelcontextprotocol/server-memory@2026.8.31

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${DISPATCH_INTEROP_CACHE:-$root/scripts/.cache/interop}
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

failures=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }

# check NAME PATTERN CMD...: CMD must exit 0 and print something matching
# the extended regular expression PATTERN.
check() {
  local name=$1 pattern=$2 out
  shift 2
  if out=$("$@" 2>"$work/stderr"); then
    if grep -Eq -- "$pattern" <<<"$out"; then pass "$name"; return; fi
    fail "$name: output does not match /$pattern/"
  else
    fail "$name: exit $?"
  fi
  echo "$out" | head -20 | sed 's/^/     | /'
  sed 's/^/     ! /' "$work/stderr" | head -20
}

echo "# installing $EVERYTHING $FILESYSTEM $MEMORY into $cache"
mkdir -p "$cache"
want="$EVERYTHING $FILESYSTEM $MEMORY"
if [ "$(cat "$cache/.installed" 2>/dev/null)" != "$want" ]; then
  (cd "$cache" && { [ -f package.json ] || npm init -y >/dev/null; } \
    && npm install --no-audit --no-fund --loglevel=error $want >/dev/null)
  echo "$want" >"$cache/.installed"
fi
bin=$cache/node_modules/.bin

echo "# building dispatch"
(cd "$root" && go build -o "$work/dispatch" .)
dispatch=$work/dispatch
mkdir -p "$work/files"
echo "hello from interop" >"$work/files/greeting.txt"

# Stdio servers get only a safe set of dispatch's environment: the memory
# server's file is set in its config.
cat >"$work/memory.toml" <<EOF
[servers.memory]
command = "$bin/mcp-server-memory"
env = { MEMORY_FILE_PATH = "$work/memory.json" }
EOF
stdio=(--mcp "$bin/mcp-server-everything" --mcp "$bin/mcp-server-filesystem $work/files $root/testdata" --config "$work/memory.toml")
# A catalog cache of our own, so every run starts cold whatever ran before.
export XDG_CACHE_HOME=$work/cache

echo "# stdio"
check "list shows three ready servers" 'c1 .*ready.*\n?' "$dispatch" "${stdio[@]}" list
check "list: filesystem tools named" 'read_text_file' "$dispatch" "${stdio[@]}" list
check "list --json is JSON with 3 connections" '"alias": "c3"' "$dispatch" "${stdio[@]}" --json list
check "search finds get-sum for adding numbers" '^ *1\. c1/get-sum' "$dispatch" "${stdio[@]}" search add two numbers together
check "search finds read_text_file" 'c2/read_text_file' "$dispatch" "${stdio[@]}" search read the contents of a text file
check "info shows get-sum's input schema" '"inputSchema"' "$dispatch" "${stdio[@]}" info get-sum
check "call get-sum" 'The sum of 2 and 3 is 5' "$dispatch" "${stdio[@]}" call get-sum '{"a":2,"b":3}'
check "call get-sum a=2 b=3 types the values from its schema" 'The sum of 2 and 3 is 5' "$dispatch" "${stdio[@]}" call get-sum a=2 b=3
check "call get-structured-content keeps structuredContent" '"structuredContent"' "$dispatch" "${stdio[@]}" --json call get-structured-content '{"location":"New York"}'
check "call filesystem read_text_file" 'hello from interop' "$dispatch" "${stdio[@]}" call read_text_file "{\"path\":\"$work/files/greeting.txt\"}"
check "call memory create_entities" 'interop-entity' "$dispatch" "${stdio[@]}" call create_entities '{"entities":[{"name":"interop-entity","entityType":"test","observations":["made by interop.sh"]}]}'
check "call memory read_graph sees it" 'interop-entity' "$dispatch" "${stdio[@]}" call read_graph '{}'
check "large result spills to --spill-dir" 'result saved to' "$dispatch" "${stdio[@]}" --threshold 1KiB --spill-dir "$work/results" call directory_tree "{\"path\":\"$root/testdata\"}"
spilled=$(ls "$work"/results/* 2>/dev/null | head -1 || true)
check "readresult greps the spilled file" '[0-9]+:' "$dispatch" readresult "$spilled" --op grep --pattern 'fixture|golden' --max-matches 3
check "task-only tool: list says it runs as a task" '"name": "simulate-research-query"[^}]*"runsAsTask": true' \
  bash -c "\"$dispatch\" --mcp \"$bin/mcp-server-everything\" --json list -C c1 --limit 100 | tr -d '\n'"
check "task-only tool: call simulate-research-query as a task" 'Research Report: tides' "$dispatch" --mcp "$bin/mcp-server-everything" call simulate-research-query '{"topic":"tides"}'
# The filesystem server sends its text twice, as content and wrapped in
# structuredContent {"content": ...}: the saved file must be the text (or the
# JSON it holds), line by line, not the one-line wrapper.
check "directory_tree -o saves the tree, not its wrapper" '"saved": "text"' "$dispatch" "${stdio[@]}" --json call directory_tree "{\"path\":\"$root/testdata/fixture\"}" -o "$work/tree.json"
check "head reads the saved tree line by line" '^3: +"name": ' "$dispatch" readresult "$work/tree.json" --op head --lines 5
check "grep finds a file in the saved tree" '^[0-9]+: +"name": "main\.go"' "$dispatch" readresult "$work/tree.json" --op grep --pattern '"main\.go"'
seq -f 'poem line %g' 1 60 >"$work/files/poem.txt"
check "read_text_file resultToFile saves the text, which grep reads" '"text":"42:poem line 42\\n' bash -c "printf '%s\n' '{\"id\":\"f\",\"action\":\"call\",\"tool\":\"read_text_file\",\"arguments\":{\"path\":\"$work/files/poem.txt\"},\"resultToFile\":true}' '{\"action\":\"readresult\",\"resultFile\":\"\$f.resultFile\",\"op\":\"grep\",\"pattern\":\"poem line 42\$\"}' | \"$dispatch\" --mcp \"$bin/mcp-server-filesystem $work/files\" run -"
check "--toon leaves read_text_file's text as text" '^poem line 2$' "$dispatch" "${stdio[@]}" --toon call read_text_file "{\"path\":\"$work/files/poem.txt\"}"
# A run is checked before any step runs: the refusal is on stderr, exit 2.
check "a stray key get-sum lacks is not moved into arguments" 'exit=2 .*nor of tool "get-sum", which takes: a, b' bash -c "err=\$(printf '%s\n' '{\"action\":\"call\",\"tool\":\"get-sum\",\"arguments\":{\"a\":2,\"b\":3},\"query\":\"x\"}' | \"$dispatch\" --mcp \"$bin/mcp-server-everything\" run - 2>&1 >/dev/null); echo exit=\$? \$err"
# The README's run example, as a steps file from the shell (its /data paths
# moved here); 400 entities are over the threshold, so "$doc.resultFile" exists.
node -e 'const e=[];for(let i=0;i<400;i++)e.push({name:"readme-run-"+i,entityType:"readme-run",observations:["x".repeat(200)]});require("fs").writeFileSync(process.argv[1],JSON.stringify({entities:e}))' "$work/files/entities.json"
awk '/^## Several operations in one request/{s=1} s&&/^```json$/{b=1;next} b&&/^```$/{exit} b' "$root/README.md" | sed "s|/data/out/|$work/files/|; s|/data/|$work/files/|" >"$work/readme-run.json"
check "the README's run example runs as a steps file" '^\["readme-run-0",.*"readme-run-399"\]$' bash -c "\"$dispatch\" \"\$@\" run \"$work/readme-run.json\" >/dev/null && cat \"$work/files/names.json\"" _ "${stdio[@]}"
# -o is checked before the call: write_file must not write when its result
# has nowhere to go.
check "write_file -o into a missing directory: exit 2, nothing written" 'exit=2 absent' bash -c "\"$dispatch\" \"\${@}\" call write_file path=$work/files/new.txt content=hello -o /nonexistent/dir/x.json >/dev/null 2>&1; echo exit=\$? \$([ -e $work/files/new.txt ] && echo present || echo absent)" _ "${stdio[@]}"
check "directory_tree --toon -o tree.out: the summary says toon" ' lines, toon, ' "$dispatch" "${stdio[@]}" --toon call directory_tree "{\"path\":\"$root/testdata/fixture\"}" -o "$work/tree2.out"
check "readresult queries the TOON tree under a .out name" '^[0-9]+$' "$dispatch" readresult "$work/tree2.out" --op query --path '#'
check "ambiguous tool is a usage error (exit 2)" 'exit=2' bash -c "\"$dispatch\" --mcp \"$bin/mcp-server-everything\" --mcp \"$bin/mcp-server-everything stdio\" call echo '{\"message\":\"x\"}' >/dev/null 2>&1; echo exit=\$?"

echo "# environment: the host's tokens do not reach stdio servers"
# get-env returns the server's whole environment. The token's value would be
# masked in the answer anyway (its name says credential), so look for its name.
export DISPATCH_INTEROP_HOST_TOKEN=interop-host-token-7c1e
check "get-env: a server gets PATH but not the host's token" '^safe$' bash -c \
  "out=\$(\"$dispatch\" --no-cache --mcp \"$bin/mcp-server-everything\" call get-env '{}') && grep -q '\"PATH\"' <<<\"\$out\" && ! grep -q DISPATCH_INTEROP_HOST_TOKEN <<<\"\$out\" && echo safe"
check "get-env: --inherit-env passes the whole environment" 'DISPATCH_INTEROP_HOST_TOKEN' \
  "$dispatch" --no-cache --inherit-env --mcp "$bin/mcp-server-everything" call get-env '{}'
test -f "$work/memory.json" && pass "memory server wrote the file its configured env names" || fail "memory server did not write \$MEMORY_FILE_PATH from its configured env"

# Resources and prompts (server-everything is c1).
ev=(--no-cache --mcp "$bin/mcp-server-everything")
check "list --type resource: 7 resources and 2 templates" '^7 2$' bash -c \
  "out=\$(\"$dispatch\" \"\$@\" list --type resource) && echo \$(grep -c '^c1  demo://resource/static/' <<<\"\$out\") \$(grep -c '(template)' <<<\"\$out\")" _ "${ev[@]}"
check "read architecture.md" '^# .*[Aa]rchitecture' "$dispatch" "${ev[@]}" read demo://resource/static/document/architecture.md
check "read dynamic/text/2" '^Resource 2: ' "$dispatch" "${ev[@]}" read demo://resource/dynamic/text/2
check "read the text template with resourceId=2" '^Resource 2: ' "$dispatch" "${ev[@]}" read 'demo://resource/dynamic/text/{resourceId}' resourceId=2
check "read a blob from the blob template, saved to a file" 'decoded binary' "$dispatch" "${ev[@]}" read 'demo://resource/dynamic/blob/{resourceId}' resourceId=4 -o "$work/blob4.bin"
check "the saved blob holds the decoded bytes" '^Resource 4: ' cat "$work/blob4.bin"
check "a blob without -o or --spill-dir: exit 2 saying so" 'exit=2 .*Pass -o FILE' bash -c "err=\$(\"$dispatch\" \"\$@\" read demo://resource/dynamic/blob/1 2>&1 >/dev/null); echo exit=\$? \$err" _ "${ev[@]}"
check "list --type prompt: 4 prompts" '^4$' bash -c "\"$dispatch\" \"\$@\" list --type prompt | grep -c '^c1  '" _ "${ev[@]}"
check "prompt args-prompt city=Paris names the city" 'Paris' "$dispatch" "${ev[@]}" prompt args-prompt city=Paris
check "prompt args-prompt without city: exit 2 naming it" 'exit=2 .*"city"' bash -c "err=\$(\"$dispatch\" \"\$@\" prompt args-prompt 2>&1 >/dev/null); echo exit=\$? \$err" _ "${ev[@]}"
check "a resource_link from get-resource-links read next (CLI)" '^Resource 2: ' bash -c \
  "uri=\$(\"$dispatch\" \"\$@\" --json call get-resource-links count=2 | grep -o 'demo://resource/dynamic/text/[0-9]*' | head -1) && \"$dispatch\" \"\$@\" read \"\$uri\"" _ "${ev[@]}"
go build -o "$work/readcheck" "$root/scripts/readcheck"
check "serve: resources, prompts and a resource_link read next by an agent" 'resources and prompts ok' \
  "$work/readcheck" "$dispatch" "${stdio[@]}"

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
# serve MODE PATH: start server-everything over MODE, wait for it to
# listen, and set url. It runs in this shell, not in $(...), so that its
# pid reaches cleanup.
serve() {
  local mode=$1 path=$2 port=${3:-}
  [ -n "$port" ] || port=$(free_port)
  PORT=$port "$bin/mcp-server-everything" "$mode" >>"$work/$mode.log" 2>&1 &
  pids+=($!)
  server_pid=$!
  server_port=$port
  for _ in $(seq 1 100); do
    if node -e "require('net').connect($port,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))" 2>/dev/null; then
      url="http://127.0.0.1:$port$path"
      return
    fi
    sleep 0.1
  done
  echo "server-everything $mode did not start:" >&2
  cat "$work/$mode.log" >&2
  return 1
}

echo "# streamable HTTP"
if serve streamableHttp /mcp; then
  check "http: list" 'c1 .*ready' "$dispatch" --mcp "$url" list
  check "http: search" 'get-sum' "$dispatch" --no-cache --mcp "$url" search add two numbers
  check "http: call echo" 'Echo: over http' "$dispatch" --mcp "$url" call echo '{"message":"over http"}'
  check "http: info get-sum" '"name": "get-sum"' "$dispatch" --mcp "$url" info get-sum
  # server-everything restarts while a serving dispatch is idle; it then
  # answers the old session with 400 "No valid session ID provided".
  coproc AGENT { "$dispatch" --no-cache --mcp "$url" 2>"$work/agent.stderr"; }
  rpc() { echo "$1" >&"${AGENT[1]}"; local line; read -t 60 -r line <&"${AGENT[0]}" && echo "$line"; }
  rpc '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"interop","version":"1"}}}' >/dev/null
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&"${AGENT[1]}"
  call_echo() { rpc "{\"jsonrpc\":\"2.0\",\"id\":\"$1\",\"method\":\"tools/call\",\"params\":{\"name\":\"proxy-dispatch\",\"arguments\":{\"action\":\"call\",\"tool\":\"echo\",\"arguments\":{\"message\":\"$1\"}}}}"; }
  check "http: serving dispatch calls echo" 'Echo: before-restart' call_echo before-restart
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  if serve streamableHttp /mcp "$server_port"; then
    check "http: first call after the server restarted opens a new session" 'Echo: after-restart' call_echo after-restart
    check "http: refresh after a restart lists the tools" 'ready.*get-sum' \
      rpc '{"jsonrpc":"2.0","id":"refresh","method":"tools/call","params":{"name":"proxy-dispatch","arguments":{"action":"list","refresh":true}}}'
  else
    fail "http: server-everything did not restart on port $server_port"
  fi
  exec {AGENT[1]}>&-
  wait "$AGENT_PID" 2>/dev/null || true
else
  fail "http: server-everything streamableHttp did not start"
fi

echo "# legacy SSE"
if serve sse /sse; then
  check "sse: list" 'c1 .*ready' "$dispatch" --mcp "sse+$url" list
  check "sse: search" 'get-sum' "$dispatch" --no-cache --mcp "sse+$url" search add two numbers
  check "sse: info get-sum" '"name": "get-sum"' "$dispatch" --mcp "sse+$url" info get-sum
  check "sse: call get-sum" 'is 5' "$dispatch" --mcp "sse+$url" call get-sum '{"a":1,"b":4}'
else
  fail "sse: server-everything sse did not start"
fi

echo "# MCP server mode: a real MCP client (mcp-go) drives dispatch over stdio"
go build -o "$work/agentcheck" "$root/scripts/agentcheck"
check "serve: agent session, catalogs from the cache" 'agent session ok' \
  "$work/agentcheck" "$dispatch" "${stdio[@]}"
check "serve: agent session, --no-cache" 'agent session ok' \
  "$work/agentcheck" "$dispatch" "${stdio[@]}" --no-cache

echo "# relay: server-everything's sampling, elicitation and roots requests reach an agent's handlers"
go build -o "$work/relaycheck" "$root/scripts/relaycheck"
check "relay: trigger-sampling-request, trigger-elicitation-request, get-roots-list" 'relay ok' \
  "$work/relaycheck" "$dispatch" --no-cache --mcp "$bin/mcp-server-everything"

echo "# TOON: byte-identical to the reference encoder @toon-format/toon@2.3.1"
check "toon: generated and 200 random documents identical" 'differential: 200/200 random documents identical' \
  bash "$root/scripts/toon-bench/run.sh" 200

echo
if [ "$failures" -gt 0 ]; then
  echo "interop: $failures check(s) failed"
  exit 1
fi
echo "interop: all checks passed"
