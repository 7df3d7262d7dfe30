package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dispatch/dispatch"
)

func TestCLI_ExitCodes(t *testing.T) {
	fx := fixture()
	kept := filepath.Join(t.TempDir(), "kept.json")
	writeFile(t, kept, "{\n  \"items\": [1, 2]\n}\n")
	tests := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		stdout   string
		stderrIn string
	}{
		{"call ok", "", []string{"--mcp", fx, "call", "echo", `{"message":"hi"}`}, exitOK, "hi\n", ""},
		{"arguments from stdin", `{"message":"from stdin"}`, []string{"--mcp", fx, "call", "echo", "-"}, exitOK, "from stdin\n", ""},
		{"tool returned isError", "", []string{"--mcp", fx, "call", "fail", `{"message":"nope"}`}, exitToolError, "nope\n", "returned an error"},
		{"bad JSON arguments", "", []string{"--mcp", fx, "call", "echo", `{"message":`}, exitUsage, "", "not valid JSON"},
		{"tool written as shown, c1/echo", "", []string{"--mcp", fx, "call", "c1/echo", `{"message":"hi"}`}, exitOK, "hi\n", ""},
		{"c1/echo with -C c1", "", []string{"--mcp", fx, "call", "c1/echo", `{"message":"hi"}`, "-C", "c1"}, exitOK, "hi\n", ""},
		{"c2/echo with no c2", "", []string{"--mcp", fx, "call", "c2/echo"}, exitUsage, "", "did you mean c1/echo"},
		{"unknown tool", "", []string{"--mcp", fx, "call", "ecko"}, exitUsage, "", "did you mean c1/echo"},
		{"no servers", "", []string{"list"}, exitUsage, "", "no servers configured"},
		{"unknown flag", "", []string{"--bogus"}, exitUsage, "", "unknown flag"},
		{"server cannot start", "", []string{"--mcp", "/nonexistent/cmd", "call", "x", "-C", "c1"}, exitServer, "", `command "cmd" not found`},
		{"tool maybe on a server that cannot start", "", []string{"--mcp", "/nonexistent/cmd", "--mcp", fx, "call", "x"}, exitServer, "", `dispatch: could not reach c1 to look for tool "x" there, so it may yet exist: c1: `},
		{"list", "", []string{"--mcp", fx, "list"}, exitOK, "", ""},
		{"list with a server down", "", []string{"--mcp", "/nonexistent/cmd", "--mcp", fx, "list"}, exitServer, "", "could not reach c1"},
		{"search with every server down", "", []string{"--mcp", "/nonexistent/cmd", "search", "echo"}, exitServer, "", "could not reach c1"},
		{"search finds tools though a server is down", "", []string{"--mcp", "/nonexistent/cmd", "--mcp", fx, "search", "echo"}, exitOK, "", ""},
		{"server crashes mid-call", "", []string{"--mcp", fx, "call", "crash"}, exitServer, "", "server connection lost"},
		{"--args-dir missing", "", []string{"--mcp", fx, "--args-dir", "/nonexistent/dir", "list"}, exitUsage, "", "--args-dir /nonexistent/dir is not a directory"},
		{"--spill-max 0", "", []string{"--mcp", fx, "--spill-max", "0", "list"}, exitUsage, "", "--spill-max must be more than 0"},
		{"bad threshold", "", []string{"--mcp", fx, "--threshold", "lots", "list"}, exitUsage, "", "--threshold"},
		{"call timeout longer than a time.Duration", "", []string{"--mcp", fx, "call", "echo", `{"message":"x"}`, "--call-timeout", "1e12"}, exitUsage, "", "--call-timeout of 1000000000000 seconds is too long"},
		{"--call-timeout ran out", "", []string{"--mcp", fx, "call", "hang", `{}`, "--call-timeout", "0.2"}, exitServer, "", "set by --call-timeout for this call"},
		{"--timeout ran out", "", []string{"--mcp", fx, "--timeout", "200ms", "call", "hang", `{}`}, exitServer, "", "the limit is --timeout; raise it, or pass --call-timeout"},
		{"--timeout 0", "", []string{"--mcp", fx, "--timeout", "0", "list"}, exitUsage, "", "--timeout must be a positive duration"},
		{"--connect-timeout 0", "", []string{"--mcp", fx, "--connect-timeout", "0s", "list"}, exitUsage, "", "--connect-timeout must be a positive duration"},
		{"--max-catalog-items 0", "", []string{"--mcp", fx, "--max-catalog-items", "0", "list"}, exitUsage, "", "--max-catalog-items must be at least 1"},
		{"--max-catalog-size 0", "", []string{"--mcp", fx, "--max-catalog-size", "0", "list"}, exitUsage, "", "--max-catalog-size must be more than 0"},
		{"environment setting before the command", "", []string{"--mcp", "FIXTURE_TOKEN=s3cret " + fx, "call", "echo", "-C", "c1"}, exitServer, "", `write the server as "env FIXTURE_TOKEN=… COMMAND ARGS"`},
		{"--max-restarts 0", "", []string{"--mcp", fx, "--max-restarts", "0", "list"}, exitUsage, "", "--max-restarts must be at least 1"},
		{"negative call timeout", "", []string{"--mcp", fx, "call", "echo", `{"message":"x"}`, "--call-timeout=-1"}, exitUsage, "", "--call-timeout must be more than 0 seconds, got -1"},
		// Zero is no longer a silent "use the default": each says the range
		// and that leaving the flag out gives the default.
		{"--call-timeout 0", "", []string{"--mcp", fx, "call", "echo", `{"message":"x"}`, "--call-timeout", "0"}, exitUsage, "", "--call-timeout must be more than 0 seconds, got 0. Use a number of seconds more than 0"},
		{"list --limit 0", "", []string{"--mcp", fx, "list", "--limit", "0"}, exitUsage, "", `--limit must be at least 1, got 0. Use 1 to 500, or leave it out for 50`},
		{"search --limit 0", "", []string{"--mcp", fx, "search", "echo", "--limit", "0"}, exitUsage, "", `--limit must be at least 1, got 0. Use 1 to 50, or leave it out for 10`},
		{"readresult head --lines 0", "", []string{"readresult", kept, "--op", "head", "--lines", "0"}, exitUsage, "", `--lines must be at least 1, got 0. Leave it out for 50 lines`},
		{"readresult read --max-bytes 0", "", []string{"readresult", kept, "--op", "read", "--max-bytes", "0"}, exitUsage, "", `--max-bytes must be at least 1, got 0. Leave it out for 16384 bytes`},
		{"readresult head --lines 1", "", []string{"readresult", kept, "--op", "head", "--lines", "1"}, exitOK, "1:{\n", ""},
		{"readresult query", "", []string{"readresult", kept, "--op", "query", "--path", "items.1"}, exitOK, "2\n", ""},
		{"readresult query matches nothing", "", []string{"readresult", kept, "--op", "query", "--path", "nope"}, exitUsage, "", `"nope" matches nothing`},
		{"readresult malformed query path", "", []string{"readresult", kept, "--op", "query", "--path", "items.#("}, exitUsage, "", "invalid gjson path"},
		{"readresult slice past the end", "", []string{"readresult", kept, "--op", "slice", "--from-line", "9"}, exitUsage, "", "past the end of the file"},
		{"readresult grep --max-matches 0", "", []string{"readresult", kept, "--op", "grep", "--pattern", "1", "--max-matches", "0"}, exitUsage, "", `--max-matches must be at least 1, got 0. Leave it out`},
		{"readresult grep --max-matches 1", "", []string{"readresult", kept, "--op", "grep", "--pattern", "[{}]", "--max-matches", "1"}, exitOK, "", "2 matching lines in all; showing the first 1"},
		{"readresult read past the end", "", []string{"readresult", kept, "--op", "read", "--offset", "999"}, exitUsage, "", "offsets run from 0 to"},
		{"readresult invalid pattern", "", []string{"readresult", kept, "--op", "grep", "--pattern", "("}, exitUsage, "", "invalid regular expression"},
		{"readresult missing file", "", []string{"readresult", kept + ".gone"}, exitUsage, "", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			if tt.stdout != "" && stdout != tt.stdout {
				t.Errorf("stdout = %q, want %q", stdout, tt.stdout)
			}
			if !strings.Contains(stderr, tt.stderrIn) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.stderrIn)
			}
		})
	}
}

func TestCLI_JSONOutputParses(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "--mcp", fixture(), "--json", "call", "add", `{"a":1,"b":2}`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var resp struct {
		Connection        string
		Tool              string
		StructuredContent struct{ Sum float64 }
		EstimatedTokens   int64
	}
	if err := json.Unmarshal([]byte(stdout), &resp); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if resp.Connection != "c1" || resp.Tool != "add" || resp.StructuredContent.Sum != 3 || resp.EstimatedTokens == 0 {
		t.Errorf("response = %+v", resp)
	}

	stdout, _, code = runCLI(t, "", "--mcp", fixture(), "--json", "info", "add")
	var info struct {
		Tool struct{ OutputSchema json.RawMessage }
	}
	if err := json.Unmarshal([]byte(stdout), &info); err != nil || code != 0 || len(info.Tool.OutputSchema) == 0 {
		t.Errorf("info --json = %s (%v, exit %d)", stdout, err, code)
	}
}

// kong splits repeatable flags on commas unless told not to: a comma inside
// a server's command line must stay in that command line.
func TestCLI_CommaInServerSpec(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture("--instructions", "a,b"), "--json", "list", "--format", "detail")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var resp struct {
		Connections []struct{ Alias, Instructions string }
	}
	if err := json.Unmarshal([]byte(stdout), &resp); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if len(resp.Connections) != 1 || resp.Connections[0].Instructions != "a,b" {
		t.Errorf("want one connection with instructions \"a,b\", got %+v", resp.Connections)
	}
}

// "--mcp 'NAME=VALUE cmd'", a shell habit, says how to set the variable,
// and never shows its value, which is often a token.
func TestCLI_EnvSettingBeforeCommand(t *testing.T) {
	_, stderr, code := runCLI(t, "", "--no-cache", "--mcp", "FIXTURE_TOKEN=s3cret "+fixture(), "list")
	if code != exitServer || !strings.Contains(stderr, "env FIXTURE_TOKEN=") || strings.Contains(stderr, "s3cret") {
		t.Errorf("exit %d, stderr %q: want a hint naming env FIXTURE_TOKEN=, without the value", code, stderr)
	}
}

func TestCLI_ListText(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "--mcp", fixture("--demo"), "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"ALIAS", "c1", "ready", "list_files"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("list output lacks %q:\n%s", want, stdout)
		}
	}

	// --format detail adds each connection's ID and transport, as it does
	// to the JSON answer; the ID is what a request may name it by.
	stdout, stderr, code = runCLI(t, "", "--mcp", fixture("--demo"), "list", "--format", "detail", "--json")
	var detail dispatch.ListResponse
	if err := json.Unmarshal([]byte(stdout), &detail); code != 0 || err != nil || len(detail.Connections) != 1 || detail.Connections[0].ID == "" {
		t.Fatalf("list --format detail --json: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	stdout, stderr, code = runCLI(t, "", "--mcp", fixture("--demo"), "list", "--format", "detail")
	for _, want := range []string{"ID", "TRANSPORT", detail.Connections[0].ID, "stdio"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("list --format detail lacks %q: exit %d\n%s%s", want, code, stdout, stderr)
		}
	}

	// What --schema and --annotations ask for is in the text form too, and
	// the next page is offered as a flag, not as agent JSON.
	stdout, stderr, code = runCLI(t, "", "--no-cache", "--mcp", fixture(), "list", "-C", "c1", "--schema", "--annotations", "--limit", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{`input schema: {"type":"object"`, `annotations: {"idempotentHint":true`, "More tools: repeat with --offset 1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("list --schema --annotations lacks %q:\n%s", want, stdout)
		}
	}
	// A page past the end says so, in flags.
	stdout, stderr, code = runCLI(t, "", "--no-cache", "--mcp", fixture(), "list", "--tools", "--offset", "100000")
	if code != 0 || !strings.Contains(stdout, "The --offset is past the end: there are 18 tools; page from --offset 0") {
		t.Errorf("list --offset past the end: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, _, code = runCLI(t, "", "--no-cache", "--mcp", fixture(), "search", "add", "numbers", "--schema", "--limit", "1")
	if code != 0 || !strings.Contains(stdout, "c1/add(a, b)") || !strings.Contains(stdout, `input schema: {"type":"object"`) {
		t.Errorf("search --schema:\n%s", stdout)
	}
}

func TestCLI_ConfigFileFormats(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude.json")
	writeFile(t, claude, `{"mcpServers": {"demo": {"command": "`+fixtureBin+`", "args": ["--demo"], "env": {"DEMO_TOKEN": "${DISPATCH_TEST_TOKEN}"}}}}`)
	_, stderr, code := runCLI(t, "", "--config", claude, "call", "get_weather", `{"city":"Oslo"}`)
	if code != exitUsage || !strings.Contains(stderr, "DISPATCH_TEST_TOKEN is not set") {
		t.Errorf("undefined ${VAR}: exit %d, stderr %q", code, stderr)
	}
	t.Setenv("DISPATCH_TEST_TOKEN", "tok-12345")
	stdout, stderr, code := runCLI(t, "", "--config", claude, "-m", fixture(), "call", "get_weather", `{"city":"Oslo"}`)
	if code != 0 || !strings.Contains(stdout, "Oslo") {
		t.Errorf("mcpServers JSON: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestShellNotes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[lines 1-50 shown; more lines follow: continue with slice fromLine=51]\n", "[lines 1-50 shown; more lines follow: continue with --op slice --from-line 51]\n"},
		{"[7 matching lines in all; showing the first 3 (at most 3); continue with fromLine=120]\n", "[7 matching lines in all; showing the first 3 (at most 3); continue with --from-line 120]\n"},
		{"[bytes 0-16383 of 40000; 23617 bytes remain: continue with offset=16384]\n", "[bytes 0-16383 of 40000; 23617 bytes remain: continue with --offset 16384]\n"},
		{"[read a whole line with read offset=<its byte offset> (the first is 12)]\n", "[read a whole line with --op read --offset <its byte offset> (the first is 12)]\n"},
		{"[array of 3 elements, 40 B]\n", "[array of 3 elements, 40 B]\n"},
	}
	for _, tt := range tests {
		if got := shellNotes(tt.in); got != tt.want {
			t.Errorf("shellNotes(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
		}
	}
}

// TestCLI_SearchOfAKindNoneHave: a search of a kind the servers have none
// of says so, not that no tools match among 0 tools.
func TestCLI_SearchOfAKindNoneHave(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "--no-cache", "--mcp", fixture("--demo"), "search", "--type", "prompt", "greet", "someone")
	if code != 0 || !strings.Contains(stdout, "none of the kind asked for") || strings.Contains(stdout, "no tools match") {
		t.Errorf("search --type prompt over a server without prompts: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = runCLI(t, "", "--no-cache", "--mcp", fixture("--demo"), "search", "zebra", "unicorn")
	if code != 0 || !strings.Contains(stdout, `no tools match "zebra unicorn" among 5 tools`) {
		t.Errorf("search with no hit: exit %d\n%s%s", code, stdout, stderr)
	}
}
