package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// filterConfigs writes the fixture as server "fx" with the same filter in
// TOML and in mcpServers JSON: echo and add visible, add denied by name
// although allowed, everything else hidden by the allow list.
func filterConfigs(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	toml := filepath.Join(dir, "servers.toml")
	writeFile(t, toml, fmt.Sprintf("[servers.fx]\ncommand = %q\n\n[servers.fx.tools]\nallow = [\"ech?\", \"a*\", \"large\"]\ndeny = [\"add\", \"larg[e]\"]\n", fixtureBin))
	mcpJSON := filepath.Join(dir, "mcp.json")
	writeFile(t, mcpJSON, fmt.Sprintf(`{"mcpServers": {"fx": {"command": %q, "tools": {"allow": ["ech?", "a*", "large"], "deny": ["add", "larg[e]"]}}}}`, fixtureBin))
	return map[string]string{"toml": toml, "json": mcpJSON}
}

func TestToolFilters_CLI(t *testing.T) {
	for format, config := range filterConfigs(t) {
		entry, file := "servers.fx.tools", "servers.toml"
		if format == "json" {
			entry, file = "mcpServers.fx.tools", "mcp.json"
		}
		t.Run(format, func(t *testing.T) {
			cache := []string{"--cache-dir", t.TempDir()}
			run := func(args ...string) (string, string, int) {
				return runCLI(t, "", append(append(append([]string{}, cache...), "--config", config), args...)...)
			}
			out, stderr, code := run("list", "--tools")
			if code != exitOK {
				t.Fatalf("list: exit %d, %s", code, stderr)
			}
			checkText(t, "list --tools", out, []string{"echo"}, []string{"add", "large", "fail", "mixed"})

			out, _, _ = run("search", "sum of two numbers")
			checkText(t, "search", out, nil, []string{"Add two numbers"})

			_, stderr, code = run("info", "add")
			checkText(t, "info add", stderr, []string{fmt.Sprintf(`tool "add" is denied by %s.deny ("add") in %s`, entry, file)}, []string{"no tool named", "not found"})
			if code != exitUsage {
				t.Errorf("info add: exit %d, want %d", code, exitUsage)
			}

			_, stderr, code = run("call", "add", `{"a":1,"b":2}`)
			checkText(t, "call add", stderr, []string{fmt.Sprintf(`tool "add" is denied by %s.deny ("add") in %s`, entry, file)}, []string{"no tool named"})
			if code != exitUsage {
				t.Errorf("call add: exit %d, want %d", code, exitUsage)
			}
			_, stderr, _ = run("call", "fail", `{"message":"x"}`)
			checkText(t, "call fail", stderr, []string{fmt.Sprintf(`tool "fail" is not allowed by %s.allow (["ech?", "a*", "large"]) in %s`, entry, file)}, []string{"no tool named"})
			_, stderr, _ = run("call", "c1/large", `{"bytes":10}`)
			checkText(t, "call c1/large", stderr, []string{`tool "large" is denied by`, `("larg[e]")`}, nil)

			out, stderr, code = run("call", "echo", `{"message":"still here"}`)
			if code != exitOK || out != "still here\n" {
				t.Errorf("call echo: exit %d, %q, %s", code, out, stderr)
			}
			// A typo is still a typo where the allow list does not name
			// the tool and the server does not publish it.
			_, stderr, _ = run("call", "ecoh")
			checkText(t, "call ecoh", stderr, []string{`no tool named "ecoh"`, "did you mean c1/echo"}, []string{"allow"})
		})
	}
}

func TestToolFilters_Agent(t *testing.T) {
	configs := filterConfigs(t)
	tc := startDispatch(t, nil, "--config", configs["toml"], "--cache-dir", t.TempDir())
	list := tc.mustOK(map[string]any{"action": "list", "connection": "fx", "includeTools": true})
	checkText(t, "list", list.text(), []string{`"echo"`}, []string{`"add"`, `"large"`, `"mixed"`})
	search := tc.mustOK(map[string]any{"action": "search", "query": "sum of two numbers"})
	checkText(t, "search", search.text(), nil, []string{"Add two numbers"})
	for _, req := range []map[string]any{
		{"action": "info", "tool": "add"},
		{"action": "call", "tool": "add", "arguments": map[string]any{"a": 1, "b": 2}},
		{"action": "call", "tool": "fx/add", "arguments": map[string]any{"a": 1, "b": 2}},
	} {
		r := tc.mustCall(req)
		if !r.IsError {
			t.Errorf("%v: not refused: %s", req, r.text())
		}
		checkText(t, fmt.Sprint(req), r.text(), []string{`tool "add" is denied by servers.fx.tools.deny ("add") in servers.toml`}, []string{"no tool named"})
	}
	echo := tc.mustOK(map[string]any{"action": "call", "tool": "echo", "arguments": map[string]any{"message": "ok"}})
	if !strings.Contains(echo.text(), "ok") {
		t.Errorf("echo = %s", echo.text())
	}
}

func TestToolFilters_BadPatternIsAConfigError(t *testing.T) {
	config := filepath.Join(t.TempDir(), "servers.toml")
	writeFile(t, config, fmt.Sprintf("[servers.fx]\ncommand = %q\ntools.deny = [\"[z-\"]\n", fixtureBin))
	_, stderr, code := runCLI(t, "", "--config", config, "list")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	checkText(t, "stderr", stderr, []string{`config servers.toml: server "fx": tools.deny pattern "[z-" at line 3, column 15: syntax error in pattern`, "path.Match"}, nil)
}

// A tool a server adds later (tools/list_changed) is filtered like the
// first ones: the filter applies to every catalog, not a list made once.
func TestToolFilters_ToolAddedLaterIsFiltered(t *testing.T) {
	config := filepath.Join(t.TempDir(), "servers.toml")
	writeFile(t, config, fmt.Sprintf("[servers.fx]\ncommand = %q\ntools.deny = [\"added_*\"]\n", fixtureBin))
	tc := startDispatch(t, nil, "--config", config, "--cache-dir", t.TempDir())
	tc.mustOK(map[string]any{"action": "call", "tool": "change_tools"})
	// change_tools has added the tool by the time it answers; refresh
	// lists the server's tools anew.
	list := tc.mustOK(map[string]any{"action": "list", "connection": "fx", "includeTools": true, "refresh": true})
	checkText(t, "list after change_tools", list.text(), []string{`"name":"change_tools"`}, []string{`"name":"added_later"`})
	search := tc.mustOK(map[string]any{"action": "search", "query": "tool registered at runtime"})
	checkText(t, "search after change_tools", search.text(), nil, []string{`"name":"added_later"`})
	r := tc.mustCall(map[string]any{"action": "call", "tool": "added_later"})
	checkText(t, "call added_later", r.text(), []string{`tool "added_later" is denied by servers.fx.tools.deny ("added_*") in servers.toml`}, nil)
}
