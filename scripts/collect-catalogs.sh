#!/usr/bin/env bash
# collect-catalogs.sh — rebuild testdata/catalogs/ from real MCP servers.
#
# Installs PINNED versions of public MCP servers from the npm registry into a
# scratch directory (scripts/.cache/catalogs, gitignored), starts each one over
# stdio with dummy credentials, and dumps its raw tools/list result (all pages)
# to testdata/catalogs/<server>.json with scripts/catalogdump, with its
# resources/list, resources/templates/list and prompts/list results when the
# server declares those capabilities.
#
# The JSON files are committed so that `go test ./toolsearch` runs offline;
# run this script only to refresh them (e.g. after bumping a version below).
#
# Usage: scripts/collect-catalogs.sh [server ...]   (default: all)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${CATALOG_CACHE:-$root/scripts/.cache/catalogs}
out=$root/testdata/catalogs
mkdir -p "$cache" "$out"

# Never let an install step fetch a browser or another binary.
export PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export npm_config_loglevel=error npm_config_fund=false npm_config_audit=false

# Scratch locations handed to servers that want a directory or a data file.
scratch=$cache/.scratch
mkdir -p "$scratch/fsroot"

# server | package@version | bin | args | env (space-separated K=V, dummy values)
servers=(
	"everything|@modelcontextprotocol/server-everything@2026.8.31|mcp-server-everything||"
	"filesystem|@modelcontextprotocol/server-filesystem@2026.8.31|mcp-server-filesystem|$scratch/fsroot|"
	"memory|@modelcontextprotocol/server-memory@2026.8.31|mcp-server-memory||MEMORY_FILE_PATH=$scratch/memory.json"
	"sequential-thinking|@modelcontextprotocol/server-sequential-thinking@2026.8.31|mcp-server-sequential-thinking||"
	"github|@modelcontextprotocol/server-github@2025.4.8|mcp-server-github||GITHUB_PERSONAL_ACCESS_TOKEN=dummy"
	"gitlab|@modelcontextprotocol/server-gitlab@2025.4.25|mcp-server-gitlab||GITLAB_PERSONAL_ACCESS_TOKEN=dummy GITLAB_API_URL=http://127.0.0.1:9/api/v4"
	"slack|@modelcontextprotocol/server-slack@2025.4.25|mcp-server-slack||SLACK_BOT_TOKEN=xoxb-dummy SLACK_TEAM_ID=T00000000"
	"puppeteer|@modelcontextprotocol/server-puppeteer@2025.5.12|mcp-server-puppeteer||"
	"brave-search|@modelcontextprotocol/server-brave-search@0.6.2|mcp-server-brave-search||BRAVE_API_KEY=dummy"
	"google-maps|@modelcontextprotocol/server-google-maps@0.6.2|mcp-server-google-maps||GOOGLE_MAPS_API_KEY=dummy"
	"postgres|@modelcontextprotocol/server-postgres@0.6.2|mcp-server-postgres|postgresql://127.0.0.1:9/db|"
	"everart|@modelcontextprotocol/server-everart@0.6.2|mcp-server-everart||EVERART_API_KEY=dummy"
	"aws-kb-retrieval|@modelcontextprotocol/server-aws-kb-retrieval@0.6.2|mcp-server-aws-kb-retrieval||AWS_ACCESS_KEY_ID=dummy AWS_SECRET_ACCESS_KEY=dummy AWS_REGION=us-east-1"
	"playwright|@playwright/mcp@0.0.83|playwright-mcp|--headless|"
	"notion|@notionhq/notion-mcp-server@2.5.2|notion-mcp-server||NOTION_TOKEN=ntn_dummy"
	"context7|@upstash/context7-mcp@4.1.1|context7-mcp||"
	"kubernetes|mcp-server-kubernetes@4.1.7|mcp-server-kubernetes||"
	"firecrawl|firecrawl-mcp@3.26.0|firecrawl-mcp||FIRECRAWL_API_KEY=fc-dummy"
	"tavily|tavily-mcp@0.2.22|tavily-mcp||TAVILY_API_KEY=tvly-dummy"
	"exa|exa-mcp-server@3.4.1|exa-mcp-server||EXA_API_KEY=dummy"
	"sentry|@sentry/mcp-server@0.39.0|sentry-mcp||SENTRY_ACCESS_TOKEN=dummy"
	# Added for the held-out search set (testdata/search-holdout.json): a
	# different mix of servers from the ones the ranker was tuned on.
	"desktop-commander|@wonderwhy-er/desktop-commander@0.2.52|desktop-commander||"
	"chrome-devtools|chrome-devtools-mcp@1.11.0|chrome-devtools-mcp|--headless --isolated|"
	"ripgrep|mcp-ripgrep@0.4.0|mcp-ripgrep||"
	"git|@cyanheads/git-mcp-server@2.15.3|git-mcp-server||MCP_TRANSPORT_TYPE=stdio GIT_BASE_DIR=$scratch/fsroot"
	"knowledge-graph|@itseasy21/mcp-knowledge-graph@1.0.7|mcp-knowledge-graph||MEMORY_FILE_PATH=$scratch/kg.jsonl"
	"sqlite|mcp-sqlite@1.0.9|mcp-sqlite-server|$scratch/db.sqlite|"
)
# Tried and left out: server-redis (exits when it cannot connect at startup),
# @supabase/mcp-server-supabase and @stripe/mcp (fetch their tool list from the
# network), @heroku/mcp-server@1.2.8 (broken import at startup).

# Build the dumper. If the repository's go.sum lacks mcp-go's dependencies,
# build against a scratch copy of go.mod/go.sum rather than editing them.
dumper=$cache/catalogdump
if ! (cd "$root" && go build -o "$dumper" ./scripts/catalogdump 2>/dev/null); then
	cp "$root/go.mod" "$cache/dump.mod"
	cp "$root/go.sum" "$cache/dump.sum"
	(cd "$root" && go build -mod=mod -modfile="$cache/dump.mod" -o "$dumper" ./scripts/catalogdump)
fi

want=" $* "
failed=()
for row in "${servers[@]}"; do
	IFS='|' read -r name pkg bin args env <<<"$row"
	if [[ $# -gt 0 && $want != *" $name "* ]]; then
		continue
	fi
	dir=$cache/$name
	stamp=$dir/.installed
	if [[ ! -f $stamp || $(cat "$stamp") != "$pkg" ]]; then
		echo "install $pkg" >&2
		rm -rf "$dir"
		mkdir -p "$dir"
		echo '{"private":true}' >"$dir/package.json"
		if ! (cd "$dir" && npm install --save-exact "$pkg" >install.log 2>&1); then
			echo "install $pkg failed; see $dir/install.log" >&2
			failed+=("$name")
			continue
		fi
		echo "$pkg" >"$stamp"
	fi
	envflags=()
	for kv in $env; do
		envflags+=(-env "$kv")
	done
	# shellcheck disable=SC2086 # args is a word list on purpose
	if ! "$dumper" -server "$name" -package "$pkg" -out "$out/$name.json" -timeout 60s \
		"${envflags[@]}" -- "$dir/node_modules/.bin/$bin" $args; then
		failed+=("$name")
	fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
	echo "failed: ${failed[*]}" >&2
	exit 1
fi
