//go:build unix

package main

import (
	"dispatch/internal/testkit"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// initCount is how many initialize requests a fixture logged.
func initCount(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

func TestCLI_LazyStartFromCatalogCache(t *testing.T) {
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cache")
	var cfg strings.Builder
	logs := make([]string, 16)
	for i := range logs {
		logs[i] = filepath.Join(dir, fmt.Sprintf("init-%02d.log", i+1))
		args := fmt.Sprintf(`["--name", "s%02d", "--log-protocol-version", %q]`, i+1, logs[i])
		if i == 15 {
			args = fmt.Sprintf(`["--demo", "--log-protocol-version", %q]`, logs[i])
		}
		fmt.Fprintf(&cfg, "[servers.s%02d]\ncommand = %q\nargs = %s\n\n", i+1, fixtureBin, args)
	}
	config := filepath.Join(dir, "servers.toml")
	writeFile(t, config, cfg.String())
	d := func(args ...string) (string, string, int) {
		return runCLI(t, "", append([]string{"--config", config, "--cache-dir", cacheDir}, args...)...)
	}

	// Cold cache: list has to start every server once.
	if _, stderr, code := d("list"); code != 0 {
		t.Fatalf("list: %s", stderr)
	}
	for i, l := range logs {
		if n := initCount(t, l); n != 1 {
			t.Fatalf("server %d initialized %d times on a cold list, want 1", i+1, n)
		}
	}

	// Warm cache: list, search and info start nothing.
	out, stderr, code := d("--json", "list")
	if code != 0 {
		t.Fatalf("list: %s", stderr)
	}
	var list listResponse
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	for _, c := range list.Connections {
		if c.Status != "idle" || c.ToolCount == 0 {
			t.Errorf("%s: status %s with %d tools, want idle with cached tools", c.Alias, c.Status, c.ToolCount)
		}
	}
	if _, stderr, code := d("search", "weather forecast"); code != 0 {
		t.Fatalf("search: %s", stderr)
	}
	if _, stderr, code := d("info", "get_weather"); code != 0 {
		t.Fatalf("info: %s", stderr)
	}
	for i, l := range logs {
		if n := initCount(t, l); n != 1 {
			t.Errorf("server %d started by list/search/info on a warm cache (%d initializations)", i+1, n)
		}
	}

	// A call starts exactly the one server that has the tool.
	out, stderr, code = d("call", "get_weather", `{"city":"Oslo"}`)
	if code != 0 || !strings.Contains(out, "Oslo") {
		t.Fatalf("call: exit %d, %s %s", code, out, stderr)
	}
	for i, l := range logs {
		want := 1
		if i == 15 {
			want = 2
		}
		if n := initCount(t, l); n != want {
			t.Errorf("server %d: %d initializations after the call, want %d", i+1, n, want)
		}
	}

	// A corrupt cache entry is ignored and rebuilt, never fatal.
	entries, err := filepath.Glob(filepath.Join(cacheDir, "catalogs", "*.json"))
	if err != nil || len(entries) != 16 {
		t.Fatalf("cache has %d entries (%v), want 16", len(entries), err)
	}
	for _, e := range entries {
		writeFile(t, e, "{not json")
	}
	if _, stderr, code := d("list"); code != 0 {
		t.Fatalf("list over a corrupt cache: %s", stderr)
	}
	for _, e := range entries {
		data, err := os.ReadFile(e)
		if err != nil || !json.Valid(data) {
			t.Errorf("cache entry %s not rebuilt: %v", filepath.Base(e), err)
		}
	}

	// --refresh re-lists from the live servers; --no-cache never reads it.
	before := initCount(t, logs[0])
	if _, stderr, code := d("list", "--refresh"); code != 0 {
		t.Fatalf("list --refresh: %s", stderr)
	}
	if initCount(t, logs[0]) != before+1 {
		t.Errorf("list --refresh did not start the server")
	}
	if _, stderr, code := d("search", "--refresh", "weather"); code != 0 {
		t.Fatalf("search --refresh: %s", stderr)
	}
	if initCount(t, logs[0]) != before+2 {
		t.Errorf("search --refresh did not start the server")
	}
	before += 1
	if _, stderr, code := d("--no-cache", "list"); code != 0 {
		t.Fatalf("list --no-cache: %s", stderr)
	}
	if initCount(t, logs[0]) != before+2 {
		t.Errorf("list --no-cache did not start the server")
	}
}

func TestServe_ToolsListChangedRefreshesCatalog(t *testing.T) {
	tc := startDispatch(t, nil, "--no-cache", "--mcp", fixture())
	tc.mustOK(map[string]any{"action": "call", "tool": "change_tools"})
	testkit.WaitFor(t, "added_later in list", 10*time.Second, func() bool {
		r := tc.mustOK(map[string]any{"action": "list", "connection": "c1", "limit": 100})
		return strings.Contains(r.text(), `"added_later"`)
	})
	r := tc.mustOK(map[string]any{"action": "call", "tool": "added_later", "arguments": map[string]any{"message": "new"}})
	if r.text() == "" {
		t.Error("added_later returned nothing")
	}
}

// Serve starts servers on first use; --eager starts them all at once,
// before any request arrives.
func TestServe_EagerStartsEveryServer(t *testing.T) {
	dir := t.TempDir()
	logs := []string{filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")}
	specs := func() []string {
		return []string{"--no-cache",
			"--mcp", fixture("--log-protocol-version", logs[0]),
			"--mcp", fixture("--demo", "--log-protocol-version", logs[1])}
	}

	lazy := startDispatch(t, nil, specs()...)
	lazy.mustOK(map[string]any{"action": "call", "tool": "echo", "connection": "c1", "arguments": map[string]any{"message": "x"}})
	if a, b := initCount(t, logs[0]), initCount(t, logs[1]); a != 1 || b != 0 {
		t.Fatalf("lazy serve after one call to c1: c1 started %d times, c2 %d; want 1 and 0", a, b)
	}

	startDispatch(t, nil, append(specs(), "--eager")...)
	testkit.WaitFor(t, "--eager to start both servers", 20*time.Second, func() bool {
		return initCount(t, logs[0]) == 2 && initCount(t, logs[1]) == 1
	})
}

// A cached catalog has no expiry: when a tool is not found in one, the
// error says where the list came from and how to refresh it, rather than
// starting every server on what may be a typo.
func TestCLI_StaleCatalogSaysHowToRefresh(t *testing.T) {
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cache")
	server := filepath.Join(dir, "server.sh")
	install := func(flags string) {
		writeFile(t, server, "#!/bin/sh\nexec "+fixtureBin+" "+flags+"\n")
		if err := os.Chmod(server, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d := func(args ...string) (string, string, int) {
		return runCLI(t, "", append([]string{"--cache-dir", cacheDir, "--mcp", server}, args...)...)
	}
	install("--demo")
	if _, stderr, code := d("list"); code != exitOK {
		t.Fatalf("list: exit %d\n%s", code, stderr)
	}
	// Upgraded in place, the server gains echo_meta; its config, and so
	// its cache entry, stays the same.
	install("")
	_, stderr, code := d("call", "echo_meta", `{}`)
	// A shell user is told the command, not the agent's request.
	for _, want := range []string{`no tool named "echo_meta"`, "c1 come from the catalog cache", "refresh them with dispatch list --refresh)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("call of a tool missing from a cached catalog: stderr %q lacks %q", stderr, want)
		}
	}
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if _, stderr, code := d("list", "--refresh"); code != exitOK {
		t.Fatalf("list --refresh: exit %d\n%s", code, stderr)
	}
	if out, stderr, code := d("call", "echo_meta", `{}`); code != exitOK || !strings.Contains(out, "null") {
		t.Errorf("call after list --refresh: exit %d, %q\n%s", code, out, stderr)
	}
	// A catalog just listed from the server gets no such hint.
	if _, stderr, _ := d("--no-cache", "call", "no_such_tool"); strings.Contains(stderr, "catalog cache") {
		t.Errorf("unknown tool on a live catalog: %q", stderr)
	}
}
